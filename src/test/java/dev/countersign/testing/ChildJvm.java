package dev.countersign.testing;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.ClassType;
import com.sun.jdi.Method;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JVM started from this test run's class path, its output (stdout and stderr) in a file: for what
 * only a process shows, such as what its shutdown hooks do when it is stopped by SIGTERM, as the
 * runner's {@code docker stop} stops a cancelled job.
 */
public final class ChildJvm {

  private static final Pattern DEBUGGER_PORT =
      Pattern.compile("Listening for transport dt_socket at address: (\\d+)");

  private final Process process;
  private final Path output;

  private ChildJvm(Process process, Path output) {
    this.process = process;
    this.output = output;
  }

  /**
   * Runs {@code main} with {@code args} in a new JVM, with {@code environment} added to this one's.
   */
  public static ChildJvm start(
      Path output, Map<String, String> environment, Class<?> main, String... args)
      throws Exception {
    return new ChildJvm(launch(output, environment, List.of(), main, args), output);
  }

  /**
   * {@link #start}, with the child held by a debugger (JDWP, the JVM's own interface: nothing in
   * the code under test knows) in the thread that first enters {@code method} of {@code type} as
   * called from {@code caller}; returns once it is held there, its other threads running. A
   * deterministic point to stop it at, found without a hook in the code under test. The held thread
   * never makes that call: it stays suspended until the JVM exits (the debugger agent lets every
   * thread go on once the shutdown hooks have run), and then it throws an {@link Error} there.
   *
   * @throws AssertionError when the child ends without making that call
   */
  public static ChildJvm startHeld(
      Path output,
      Map<String, String> environment,
      String type,
      String method,
      Class<?> caller,
      Class<?> main,
      String... args)
      throws Exception {
    Process process =
        launch(
            output,
            environment,
            List.of("-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0"),
            main,
            args);
    ChildJvm child = new ChildJvm(process, output);
    try {
      VirtualMachine vm = attach(child.debuggerPort());
      CompletableFuture<Void> held = new CompletableFuture<>();
      Thread events =
          new Thread(
              () -> holdAtFirstCall(vm, type, method, caller.getName(), held), "child-debugger");
      events.setDaemon(true);
      List<ReferenceType> loaded = vm.classesByName(type);
      if (loaded.isEmpty()) {
        ClassPrepareRequest prepared = vm.eventRequestManager().createClassPrepareRequest();
        prepared.addClassFilter(type);
        prepared.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepared.enable();
      } else {
        breakAt(vm, loaded.get(0), method);
      }
      events.start();
      vm.resume(); // started suspended (suspend=y) so that no call could come first
      held.get(60, TimeUnit.SECONDS);
      if (!process.isAlive()) {
        throw new AssertionError("The child ended before it was held: " + child.output());
      }
      return child;
    } catch (Exception | AssertionError e) {
      process.destroyForcibly();
      throw e;
    }
  }

  private static Process launch(
      Path output,
      Map<String, String> environment,
      List<String> jvmOptions,
      Class<?> main,
      String... args)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
    builder.environment().putAll(environment);
    return builder.start();
  }

  private int debuggerPort() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      Matcher port = DEBUGGER_PORT.matcher(output());
      if (port.find()) {
        return Integer.parseInt(port.group(1));
      }
      if (!process.isAlive()) {
        break;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("The child's debugger did not start: " + output());
  }

  private static VirtualMachine attach(int port) throws Exception {
    AttachingConnector socket =
        Bootstrap.virtualMachineManager().attachingConnectors().stream()
            .filter(c -> c.name().equals("com.sun.jdi.SocketAttach"))
            .findFirst()
            .orElseThrow();
    Map<String, Connector.Argument> arguments = socket.defaultArguments();
    arguments.get("hostname").setValue("127.0.0.1");
    arguments.get("port").setValue(Integer.toString(port));
    return socket.attach(arguments);
  }

  private static void breakAt(VirtualMachine vm, ReferenceType type, String method) {
    for (Method m : type.methodsByName(method)) {
      BreakpointRequest request = vm.eventRequestManager().createBreakpointRequest(m.location());
      request.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
      request.enable();
    }
  }

  /**
   * Answers the child's events until it dies: sets the breakpoint once {@code type} is loaded,
   * resumes every thread that stops at it except the first one {@code caller} sent there, which
   * stays suspended with an {@link Error} to throw when it goes on ({@code held} completes then).
   */
  private static void holdAtFirstCall(
      VirtualMachine vm, String type, String method, String caller, CompletableFuture<Void> held) {
    try {
      while (true) {
        EventSet set = vm.eventQueue().remove();
        boolean resume = true;
        for (Event event : set) {
          if (event instanceof VMDisconnectEvent) {
            held.completeExceptionally(new AssertionError("The child ended before it was held"));
            return;
          } else if (event instanceof ClassPrepareEvent prepared) {
            breakAt(vm, prepared.referenceType(), method);
          } else if (event instanceof BreakpointEvent breakpoint && !held.isDone()) {
            List<StackFrame> frames = breakpoint.thread().frames(0, 2);
            if (frames.size() == 2
                && frames.get(1).location().declaringType().name().equals(caller)) {
              // The debugger agent resumes every thread once the shutdown hooks have run, before
              // the JVM ends: this one must not make the call then, after the hooks.
              ThreadReference thread = breakpoint.thread();
              ClassType death = (ClassType) vm.classesByName("java.lang.Error").get(0);
              ObjectReference stop =
                  death.newInstance(
                      thread,
                      death.concreteMethodByName("<init>", "()V"),
                      List.of(),
                      ClassType.INVOKE_SINGLE_THREADED);
              stop.disableCollection();
              thread.stop(stop);
              resume = false;
              held.complete(null);
            }
          }
        }
        if (resume) {
          set.resume();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception disconnected) {
      held.completeExceptionally(disconnected);
    }
  }

  /**
   * Stops the child with SIGTERM, as the runner's {@code docker stop} stops a cancelled job, and
   * returns its exit code once it is gone (143 when it ended as a JVM does on SIGTERM, its shutdown
   * hooks run).
   */
  public int stopWithSigterm() throws Exception {
    process.destroy();
    return awaitExit();
  }

  /** Waits up to a minute for the child to end on its own; returns its exit code. */
  public int awaitExit() throws Exception {
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        throw new AssertionError("The child did not end: " + output());
      }
      return process.exitValue();
    } finally {
      process.destroyForcibly();
    }
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** What the child printed so far. */
  public String output() throws Exception {
    return Files.readString(output);
  }

  /** Kills the child (SIGKILL) if it still runs, as a test's clean-up. */
  public void kill() {
    process.destroyForcibly();
  }

  /** countersign's temporary files ({@code .countersign-*}) anywhere under {@code directory}. */
  public static List<Path> temporaryFiles(Path directory, Path... leftOut) throws Exception {
    try (var walk = Files.walk(directory)) {
      return walk.filter(p -> List.of(leftOut).stream().noneMatch(p::startsWith))
          .filter(p -> p.getFileName().toString().startsWith(".countersign-"))
          .toList();
    }
  }
}
