package dev.countersign.verification;

import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.manifest.SignatureSetAnnotations;
import dev.countersign.manifest.SignedContent;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Test-only stand-in for manifest.ManifestReader / SignedManifestFormat.decode (built on another
 * branch): YAML 1.1 via SnakeYAML, base64 + gunzip of the annotations, legacy tar.gz messages.
 */
final class FixtureManifests {

  private FixtureManifests() {}

  static ManifestFile read(Path file) {
    try {
      byte[] bytes = Files.readAllBytes(file);
      return new ManifestFile(file, file.getFileName(), parse(bytes), bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ManifestFile fromYaml(String yaml) {
    byte[] bytes = yaml.getBytes(StandardCharsets.UTF_8);
    return new ManifestFile(Path.of("live.yaml"), Path.of("live.yaml"), parse(bytes), bytes);
  }

  static List<ManifestDocument> parse(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    List<Integer> lines = new ArrayList<>();
    List<Map<String, Integer>> fieldLines = new ArrayList<>();
    for (Node node : new Yaml().composeAll(new java.io.StringReader(text))) {
      if (node != null) {
        lines.add(node.getStartMark().getLine() + 1);
        Map<String, Integer> fields = new java.util.HashMap<>();
        lineWalk("", node, fields);
        fieldLines.add(fields);
      }
    }
    List<ManifestDocument> docs = new ArrayList<>();
    int i = 0;
    for (Object doc : new Yaml().loadAll(text)) {
      if (doc == null) {
        continue;
      }
      docs.add(new ManifestDocument(stringKeys((Map<?, ?>) doc), lines.get(i), fieldLines.get(i)));
      i++;
    }
    return docs;
  }

  private static void lineWalk(String path, Node node, Map<String, Integer> out) {
    if (node instanceof org.yaml.snakeyaml.nodes.MappingNode map) {
      for (var tuple : map.getValue()) {
        if (tuple.getKeyNode() instanceof org.yaml.snakeyaml.nodes.ScalarNode key) {
          String child = path.isEmpty() ? key.getValue() : path + "." + key.getValue();
          out.put(child, key.getStartMark().getLine() + 1);
          lineWalk(child, tuple.getValueNode(), out);
        }
      }
    } else if (node instanceof org.yaml.snakeyaml.nodes.SequenceNode seq) {
      for (int i = 0; i < seq.getValue().size(); i++) {
        Node item = seq.getValue().get(i);
        out.put(path + "." + i, item.getStartMark().getLine() + 1);
        lineWalk(path + "." + i, item, out);
      }
    }
  }

  private static Map<String, Object> stringKeys(Map<?, ?> map) {
    Map<String, Object> out = new LinkedHashMap<>();
    map.forEach((k, v) -> out.put(String.valueOf(k), normalize(v)));
    return out;
  }

  private static Object normalize(Object v) {
    if (v instanceof Map<?, ?> m) {
      return stringKeys(m);
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(x -> out.add(normalize(x)));
      return out;
    }
    if (v instanceof Integer n) {
      return n.longValue();
    }
    return v;
  }

  static Optional<SignedContent> decode(ManifestDocument document, AnnotationDomain domain) {
    Map<String, String> annotations = document.annotations();
    String message64 = annotations.get(domain.message());
    if (message64 == null) {
      return Optional.empty();
    }
    byte[] message = gunzipIfGzip(Base64.getDecoder().decode(message64));
    boolean tarball = isGzip(message);
    List<ManifestDocument> messageDocs = tarball ? tarYamlDocuments(gunzipIfGzip(message)) : parse(message);
    List<SignatureSetAnnotations> sets = new ArrayList<>();
    for (int i = 0; annotations.containsKey(domain.signature(i)); i++) {
      String sig64 = annotations.get(domain.signature(i));
      Optional<byte[]> cert = Optional.ofNullable(annotations.get(domain.certificate(i)))
          .map(c -> gunzipIfGzip(Base64.getDecoder().decode(c)));
      Optional<RekorBundle> bundle = Optional.ofNullable(annotations.get(domain.bundle(i)))
          .map(b -> RekorBundle.parse(gunzipIfGzip(Base64.getDecoder().decode(b))));
      byte[] sig;
      Optional<String> problem = Optional.empty();
      try {
        sig = Base64.getDecoder().decode(sig64);
      } catch (IllegalArgumentException e) {
        sig = new byte[0];
        problem = Optional.of("the signature annotation is not base64");
      }
      sets.add(new SignatureSetAnnotations(i, sig64, sig, cert, bundle, problem));
    }
    return Optional.of(new SignedContent(message, tarball, messageDocs, sets));
  }

  private static boolean isGzip(byte[] b) {
    return b.length > 2 && (b[0] & 0xff) == 0x1f && (b[1] & 0xff) == 0x8b;
  }

  static byte[] gunzipIfGzip(byte[] b) {
    if (!isGzip(b)) {
      return b;
    }
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(b))) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] gzip(byte[] b) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (var gz = new java.util.zip.GZIPOutputStream(out)) {
      gz.write(b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** The .yaml/.yml members of a tar (ustar, with PAX path records). */
  private static List<ManifestDocument> tarYamlDocuments(byte[] tar) {
    List<ManifestDocument> docs = new ArrayList<>();
    int pos = 0;
    String paxPath = null;
    while (pos + 512 <= tar.length) {
      if (tar[pos] == 0) {
        break;
      }
      String name = field(tar, pos, 100);
      String prefix = field(tar, pos + 345, 155);
      long size = Long.parseLong(field(tar, pos + 124, 12).trim(), 8);
      char type = (char) tar[pos + 156];
      int dataStart = pos + 512;
      byte[] data = java.util.Arrays.copyOfRange(tar, dataStart, (int) (dataStart + size));
      if (type == 'x') {
        for (String record : new String(data, StandardCharsets.UTF_8).split("\n")) {
          int eq = record.indexOf(" path=");
          if (eq >= 0) {
            paxPath = record.substring(eq + 6);
          }
        }
      } else {
        String path = paxPath != null ? paxPath : (prefix.isEmpty() ? name : prefix + "/" + name);
        paxPath = null;
        if ((type == '0' || type == 0) && (path.endsWith(".yaml") || path.endsWith(".yml"))) {
          docs.addAll(parse(data));
        }
      }
      pos = dataStart + (int) ((size + 511) / 512 * 512);
    }
    return docs;
  }

  private static String field(byte[] b, int off, int len) {
    int end = off;
    while (end < off + len && b[end] != 0) {
      end++;
    }
    return new String(b, off, end - off, StandardCharsets.US_ASCII);
  }
}
