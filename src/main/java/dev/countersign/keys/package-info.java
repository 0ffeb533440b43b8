/**
 * Key material in cosign's formats: PEM public keys (also base64-wrapped, as in Kubernetes
 * secrets), cosign encrypted private keys (scrypt + NaCl secretbox around PKCS#8), and writing new
 * cosign-compatible key pairs. Keyed signers are named by {@link
 * dev.countersign.keys.PublicKeys#fingerprint(java.security.PublicKey)}.
 */
package dev.countersign.keys;
