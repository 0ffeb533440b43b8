package dev.countersign.admission;

import static dev.countersign.manifest.YamlValues.list;
import static dev.countersign.manifest.YamlValues.map;

import dev.countersign.manifest.ManifestDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Fields the Kubernetes API server adds or rewrites when it stores an object, for the common kinds,
 * leaving out what Kyverno's default ignore fields already cover.
 *
 * <p>Why it matters: without {@code dryRun.enable}, Kyverno's {@code validate.manifests} compares
 * the signed message with the object in the admission request, after the API server's defaulting. A
 * field the manifest leaves out but the server fills in (a Service port's {@code protocol}, a
 * Deployment's {@code replicas}) makes a correctly signed object differ from its message, and
 * Kyverno rejects it. With dry-run on, Kyverno first dry-run-creates the message and compares with
 * that, so defaults cancel out. Stateless.
 */
public final class ServerDefaults {

  /** A field the server would add or rewrite: its path in the object, why, and its line. */
  public record DefaultedField(String path, String reason, int line) {}

  private static final Pattern NORMALISED_QUANTITY =
      Pattern.compile("[0-9]*\\.[0-9]+|[0-9]+\\.[0-9]*|[0-9]+000m|0[0-9]+");

  private ServerDefaults() {}

  /** The defaulted fields of {@code document}, in a stable order; empty when none is known. */
  public static List<DefaultedField> of(ManifestDocument document) {
    List<DefaultedField> found = new ArrayList<>();
    Map<String, Object> spec = map(document.content().get("spec"));
    switch (document.kind()) {
      case "Service" -> {
        List<Object> ports = list(spec.get("ports"));
        for (int i = 0; i < ports.size(); i++) {
          Map<String, Object> port = map(ports.get(i));
          String path = "spec.ports." + i;
          if (!port.containsKey("protocol")) {
            found.add(field(document, path + ".protocol", "the API server sets protocol: TCP"));
          }
          if (!port.containsKey("targetPort")) {
            found.add(
                field(
                    document, path + ".targetPort", "the API server sets targetPort to the port"));
          }
        }
      }
      case "Deployment" -> {
        if (!spec.containsKey("replicas")) {
          found.add(field(document, "spec.replicas", "the API server sets replicas: 1"));
        }
        probes(document, "spec.template.spec", map(map(spec.get("template")).get("spec")), found);
      }
      case "StatefulSet" -> {
        missing(
            document,
            spec,
            "spec",
            found,
            "replicas",
            "podManagementPolicy",
            "updateStrategy",
            "revisionHistoryLimit",
            "persistentVolumeClaimRetentionPolicy");
        podTemplate(
            document, "spec.template.spec", map(map(spec.get("template")).get("spec")), found);
      }
      case "DaemonSet" -> {
        missing(document, spec, "spec", found, "updateStrategy", "revisionHistoryLimit");
        podTemplate(
            document, "spec.template.spec", map(map(spec.get("template")).get("spec")), found);
      }
      case "Job" -> {
        found.add(
            field(
                document,
                "spec.template.metadata.labels",
                "the API server adds the controller-uid and job-name labels and a spec.selector"));
        missing(document, spec, "spec", found, "backoffLimit", "completionMode", "suspend");
        podTemplate(
            document, "spec.template.spec", map(map(spec.get("template")).get("spec")), found);
      }
      case "CronJob" -> {
        missing(
            document,
            spec,
            "spec",
            found,
            "concurrencyPolicy",
            "suspend",
            "successfulJobsHistoryLimit",
            "failedJobsHistoryLimit");
        Map<String, Object> jobSpec = map(map(spec.get("jobTemplate")).get("spec"));
        podTemplate(
            document,
            "spec.jobTemplate.spec.template.spec",
            map(map(jobSpec.get("template")).get("spec")),
            found);
      }
      case "Namespace" ->
          found.add(
              field(
                  document,
                  "metadata.labels",
                  "the API server adds the label kubernetes.io/metadata.name and spec.finalizers:"
                      + " [kubernetes]"));
      case "HorizontalPodAutoscaler" -> {
        if (!spec.containsKey("minReplicas")) {
          found.add(field(document, "spec.minReplicas", "the API server sets minReplicas: 1"));
        }
        if (document.apiVersion().equals("autoscaling/v2") && !spec.containsKey("metrics")) {
          found.add(
              field(
                  document, "spec.metrics", "the API server sets a CPU utilization metric of 80%"));
        }
      }
      case "Secret" -> {
        if (document.content().containsKey("stringData")) {
          found.add(
              field(
                  document,
                  "stringData",
                  "the API server moves stringData into data (base64) and drops stringData"));
        }
        if (!document.content().containsKey("type")) {
          found.add(field(document, "type", "the API server sets type: Opaque"));
        }
      }
      case "NetworkPolicy" -> {
        if (!spec.containsKey("policyTypes")) {
          found.add(
              field(
                  document,
                  "spec.policyTypes",
                  "the API server sets policyTypes from the ingress/egress rules"));
        }
        for (String direction : List.of("ingress", "egress")) {
          List<Object> rules = list(spec.get(direction));
          for (int i = 0; i < rules.size(); i++) {
            List<Object> ports = list(map(rules.get(i)).get("ports"));
            for (int j = 0; j < ports.size(); j++) {
              if (!map(ports.get(j)).containsKey("protocol")) {
                found.add(
                    field(
                        document,
                        "spec." + direction + "." + i + ".ports." + j + ".protocol",
                        "the API server sets protocol: TCP"));
              }
            }
          }
        }
      }
      case "PersistentVolumeClaim" -> missing(document, spec, "spec", found, "volumeMode");
      case "Pod" -> podTemplate(document, "spec", spec, found);
      default -> {}
    }
    return found;
  }

  /** Probes get timeoutSeconds/periodSeconds/successThreshold/failureThreshold. */
  private static void probes(
      ManifestDocument document,
      String podPath,
      Map<String, Object> podSpec,
      List<DefaultedField> found) {
    for (String containers : List.of("initContainers", "containers")) {
      List<Object> list = list(podSpec.get(containers));
      for (int i = 0; i < list.size(); i++) {
        Map<String, Object> container = map(list.get(i));
        for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
          Map<String, Object> value = map(container.get(probe));
          if (container.containsKey(probe)
              && !(value.containsKey("timeoutSeconds")
                  && value.containsKey("periodSeconds")
                  && value.containsKey("successThreshold")
                  && value.containsKey("failureThreshold"))) {
            found.add(
                field(
                    document,
                    podPath + "." + containers + "." + i + "." + probe,
                    "the API server sets the probe's timeoutSeconds, periodSeconds,"
                        + " successThreshold and failureThreshold"));
          }
        }
      }
    }
  }

  /**
   * Pod templates outside Deployments (whose resources Kyverno ignores): probes, quantities, port
   * protocols.
   */
  private static void podTemplate(
      ManifestDocument document,
      String podPath,
      Map<String, Object> podSpec,
      List<DefaultedField> found) {
    probes(document, podPath, podSpec, found);
    for (String containers : List.of("initContainers", "containers")) {
      List<Object> list = list(podSpec.get(containers));
      for (int i = 0; i < list.size(); i++) {
        Map<String, Object> container = map(list.get(i));
        String path = podPath + "." + containers + "." + i;
        Map<String, Object> resources = map(container.get("resources"));
        for (String section : List.of("limits", "requests")) {
          for (Map.Entry<String, Object> quantity : map(resources.get(section)).entrySet()) {
            Object value = quantity.getValue();
            if (!(value instanceof String)
                || NORMALISED_QUANTITY.matcher((String) value).matches()) {
              found.add(
                  field(
                      document,
                      path + ".resources." + section + "." + quantity.getKey(),
                      "the API server stores the quantity "
                          + value
                          + " in canonical form as a string (e.g. cpu: 1 -> \"1\", 0.5 ->"
                          + " \"500m\")"));
            }
          }
        }
        List<Object> ports = list(container.get("ports"));
        for (int j = 0; j < ports.size(); j++) {
          if (!map(ports.get(j)).containsKey("protocol")) {
            found.add(
                field(
                    document,
                    path + ".ports." + j + ".protocol",
                    "the API server sets protocol: TCP"));
          }
        }
      }
    }
  }

  private static void missing(
      ManifestDocument document,
      Map<String, Object> object,
      String path,
      List<DefaultedField> found,
      String... fields) {
    for (String name : fields) {
      if (!object.containsKey(name)) {
        found.add(
            field(
                document,
                path + "." + name,
                "the API server sets " + name + " when it is left out"));
      }
    }
  }

  private static DefaultedField field(ManifestDocument document, String path, String reason) {
    return new DefaultedField(path, reason, document.lineOf(path));
  }
}
