/**
 * The use case behind {@code countersign run}: {@link dev.countersign.run.SigningRun} decides once
 * whether the signing commit stays local, is pushed or is proposed through the bot branch's pull
 * request ({@link dev.countersign.run.RunMode} is what the user asked for), runs the pipeline's
 * {@code ReconcileJob} or the refresh, and proposes through {@code promotion.SigningProposal}.
 */
package dev.countersign.run;
