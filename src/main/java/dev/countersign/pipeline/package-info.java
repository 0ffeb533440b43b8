/**
 * Use cases that combine signing and git: {@link dev.countersign.pipeline.ReconcileJob} (the heart
 * of {@code countersign run}) and its ports ({@link dev.countersign.pipeline.SigningStep}, {@link
 * dev.countersign.pipeline.Progress}, {@link dev.countersign.support.Sleeper}).
 */
package dev.countersign.pipeline;
