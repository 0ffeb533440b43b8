/**
 * The GitHub Actions front door: reads the event and {@code INPUT_*} variables, decides whether the
 * run should sign ({@link dev.countersign.action.RunTrigger}), maps inputs to the same {@code run}
 * arguments the CLI takes ({@link dev.countersign.action.ActionInputs}), and reports with workflow
 * commands, step outputs and the job summary. No business logic lives here.
 */
package dev.countersign.action;
