package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.action.WorkflowLog;
import dev.countersign.testing.ActionsRunnerModel;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What libraries print to {@code System.out}/{@code System.err} inside Actions goes through the
 * same log writer as countersign's own output ({@link Main} installs these streams).
 */
class MainStreamsTest {

  @Test
  void libraryOutput_isDecodedLineByLine_andNeutralized() {
    StringWriter raw = new StringWriter();
    WorkflowLog log = WorkflowLog.over(new PrintWriter(raw));
    PrintStream library = new PrintStream(new Main.LineDecoder(log), true, StandardCharsets.UTF_8);

    library.println("SLF4J: no providers for unsigned/x");
    library.println("caf\u00e9 ::warning::not at the start");
    library.print("half ");
    library.println("::stop-commands::PWNED");
    library.println("##[add-mask]PWNED");
    library.close();

    assertThat(raw.toString())
        .isEqualTo(
            "SLF4J: no providers for unsigned/x\n"
                + "caf\u00e9 ::warning::not at the start\n"
                + "half ::stop-commands::PWNED\n"
                + "##%5Badd-mask]PWNED\n");
    assertThat(new ActionsRunnerModel().feed(raw.toString()).executed()).isEmpty();
  }
}
