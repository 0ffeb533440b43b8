/**
 * The repository's trust policy ({@code .countersign/policy.yaml}): who may sign, what the verifier
 * tolerates, where manifests live and which governance policies apply.
 *
 * <p>{@link dev.countersign.policy.PolicyFileLoader} reads it strictly through {@link
 * dev.countersign.policy.YamlTree} (configuration YAML as {@code manifest.ConfigurationYaml} reads
 * it) and {@link dev.countersign.policy.Schema} (also used for the governance policy files), from a
 * {@link dev.countersign.policy.RepositoryFiles}: the work tree or the base commit whose rules
 * judge a pull request. {@link dev.countersign.policy.PolicyFile#toTrustPolicy} turns it into the
 * verifier's {@code verification.TrustPolicy}.
 */
package dev.countersign.policy;
