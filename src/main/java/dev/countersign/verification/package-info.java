/**
 * The strict verifier of signed manifests (design: docs/design.md): {@link
 * dev.countersign.verification.ManifestVerifier} checks that each document matches the document its
 * signed message holds (with k8s-manifest-sigstore's and Kyverno's ignore-field semantics) and that
 * enough signers allowed by the {@link dev.countersign.verification.TrustPolicy} verified: keyed
 * sets against public keys, keyless sets against a Sigstore {@link
 * dev.countersign.verification.TrustedRoot} (SET, log entry, signature, Fulcio chain at log time,
 * single SAN, OIDC issuer, identity). Rejections are {@link
 * dev.countersign.verification.DocumentVerdict} results, never exceptions.
 */
package dev.countersign.verification;
