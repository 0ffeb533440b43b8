package dev.countersign.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The real schemas in {@code src/test/resources/schemas} (see PROVENANCE.md there): SchemaStore's
 * GitHub workflow schema, and the Kyverno ClusterPolicy and Argo CD Application CRDs' {@code
 * openAPIV3Schema}, made strict the way the API server's field validation is.
 */
public final class RealSchemas {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final YAMLMapper YAML = new YAMLMapper(new YAMLFactory());
  private static final JsonSchemaFactory FACTORY =
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7);

  private static JsonSchema workflow;
  private static JsonSchema clusterPolicy;
  private static JsonSchema application;

  private RealSchemas() {}

  public static synchronized JsonSchema githubWorkflow() {
    if (workflow == null) {
      workflow = FACTORY.getSchema(read("/schemas/github-workflow.json", JSON));
    }
    return workflow;
  }

  public static synchronized JsonSchema kyvernoClusterPolicy() {
    if (clusterPolicy == null) {
      clusterPolicy =
          FACTORY.getSchema(crdSchema("/schemas/kyverno.io_clusterpolicies.yaml", "v1"));
    }
    return clusterPolicy;
  }

  public static synchronized JsonSchema argoApplication() {
    if (application == null) {
      application =
          FACTORY.getSchema(crdSchema("/schemas/argoproj.io_applications.yaml", "v1alpha1"));
    }
    return application;
  }

  /**
   * The schema for a generated or example file, by what it is; null for files no public schema
   * covers.
   */
  public static JsonSchema forDocument(JsonNode document) {
    String apiVersion = document.path("apiVersion").asText();
    String kind = document.path("kind").asText();
    if (apiVersion.equals("kyverno.io/v1") && kind.equals("ClusterPolicy")) {
      return kyvernoClusterPolicy();
    }
    if (apiVersion.equals("argoproj.io/v1alpha1") && kind.equals("Application")) {
      return argoApplication();
    }
    return null;
  }

  /** Error messages, sorted; empty when {@code document} is valid. */
  public static Set<String> errors(JsonSchema schema, JsonNode document) {
    Set<String> messages = new TreeSet<>();
    for (ValidationMessage message : schema.validate(document)) {
      messages.add(message.getMessage());
    }
    return messages;
  }

  /** Every document of a YAML stream, as JSON values ({@code on} stays a string key). */
  public static List<JsonNode> yamlDocuments(String text) {
    try {
      List<JsonNode> documents = new ArrayList<>();
      var parser = YAML.getFactory().createParser(text);
      Iterator<JsonNode> values = YAML.readValues(parser, JsonNode.class);
      while (values.hasNext()) {
        JsonNode node = values.next();
        if (node != null && !node.isNull() && !node.isMissingNode()) {
          documents.add(node);
        }
      }
      return documents;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode crdSchema(String resource, String version) {
    JsonNode crd = read(resource, YAML);
    for (JsonNode entry : crd.path("spec").path("versions")) {
      if (entry.path("name").asText().equals(version)) {
        JsonNode schema = entry.path("schema").path("openAPIV3Schema").deepCopy();
        strict(schema);
        return schema;
      }
    }
    throw new IllegalStateException(resource + " has no version " + version);
  }

  /**
   * Unknown fields are refused (kubectl's default strict field validation), except where the schema
   * preserves them.
   */
  private static void strict(JsonNode node) {
    if (node instanceof ObjectNode object) {
      if (object.has("properties")
          && !object.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
          && !object.has("additionalProperties")) {
        object.put("additionalProperties", false);
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
        strict(it.next().getValue());
      }
    } else if (node != null && node.isArray()) {
      node.forEach(RealSchemas::strict);
    }
  }

  private static JsonNode read(String resource, ObjectMapper mapper) {
    try (InputStream in = RealSchemas.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + resource);
      }
      return mapper.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
