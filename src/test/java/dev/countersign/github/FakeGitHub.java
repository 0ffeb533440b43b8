package dev.countersign.github;

import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import dev.countersign.promotion.PullRequestDraft;
import dev.countersign.testing.HostedPullRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stateful stand-in for the slice of the GitHub REST API that pull-request promotion uses, served
 * by a real WireMock server on a random loopback port. Answers have the shape of hub4j's recordings
 * of api.github.com ({@code src/test/resources/github/recorded/}, see PROVENANCE.md); the values
 * (numbers, titles, labels...) come from what earlier requests stored.
 *
 * <p>Requests without {@code Authorization: token <token>} get 401, and {@code GET /user} gets the
 * 403 the Actions job token gets. {@link #failNext} injects errors (with headers, for rate limits),
 * {@link #beforeNext} runs a race just before a request is answered. Every request stays in
 * WireMock's journal ({@link #server()}) for {@code verify}, and in {@link #requests()} in order.
 *
 * <p>{@link #backedBy} adds the Git Data API and branch reads over a real bare repository (see
 * {@link FakeGitData}), the same one the tests push to with git.
 */
public final class FakeGitHub implements AutoCloseable {

  public static final String REPOSITORY = "hub4j-test-org/github-api";
  public static final String OWNER = "hub4j-test-org";
  private static final String RECORDED = "/github/recorded/";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String token;
  private final WireMockServer server;
  private final Map<Integer, Pull> pulls = new TreeMap<>();
  private final Set<String> branches = new TreeSet<>();
  private final Deque<Fault> faults = new ArrayDeque<>();
  private final List<String> unrouted = new ArrayList<>();
  private final String base;
  private final ObjectNode pullTemplate;
  private final Set<String> listedKeys;
  private final ObjectNode labelTemplate;
  private final ObjectNode reviewerTemplate;
  private final ObjectNode refTemplate;
  private final String alreadyExistsBody;
  private int nextNumber = 273; // the number in the recording, so diffs against it read easily

  private static final class Pull {
    int number;
    String head;
    String baseRef;
    String title;
    String body;
    boolean open = true;
    boolean draft;
    final Set<String> labels = new LinkedHashSet<>();
    final Set<String> reviewers = new LinkedHashSet<>();
    final Set<String> teams = new LinkedHashSet<>();
    final Set<String> assignees = new LinkedHashSet<>();
    String mergedSha;
  }

  private record Fault(
      String method, Pattern path, int status, Map<String, String> headers, String body) {}

  private record Hook(String method, Pattern path, Runnable action) {}

  private record Trickle(String method, Pattern path, Duration spread) {}

  private final Deque<Trickle> trickles = new ArrayDeque<>();

  private final Deque<Hook> hooks = new ArrayDeque<>();
  private final Deque<Hook> afterHooks = new ArrayDeque<>();
  private final List<String> requests = new ArrayList<>();
  private FakeGitData gitData;

  private FakeGitHub(String token) {
    this.token = token;
    this.server =
        new WireMockServer(
            options().dynamicPort().bindAddress("127.0.0.1").extensions(new Router()));
    server.start();
    server.stubFor(any(anyUrl()).willReturn(ok()));
    this.base = "http://127.0.0.1:" + server.port();
    this.pullTemplate =
        (ObjectNode) recorded("GHPullRequestTest/createPullRequest/__files/4-r_h_g_pulls.json");
    Set<String> keys = new TreeSet<>();
    recorded("GHPullRequestTest/queryPullRequestsQualifiedHead/__files/6-r_h_g_pulls.json")
        .get(0)
        .fieldNames()
        .forEachRemaining(keys::add);
    this.listedKeys = keys;
    this.labelTemplate =
        (ObjectNode)
            inlineBody("GHPullRequestTest/addLabels/mappings/5-r_h_g_issues_427_labels.json")
                .get(0);
    this.reviewerTemplate =
        (ObjectNode)
            recorded(
                    "GHPullRequestTest/testPullRequestReviewRequests/__files/6-r_h_g_pulls_299_requested_reviewers.json")
                .get("requested_reviewers")
                .get(0);
    this.refTemplate =
        (ObjectNode)
            recorded("GHBranchTest/testMergeBranch/__files/3-r_h_t_git_refs_heads_main.json");
    this.alreadyExistsBody =
        recorded("GHIssueEventTest/testIssueReviewRequestedEvent/mappings/5-r_h_g_pulls.json")
            .get("response")
            .get("body")
            .asText();
  }

  /** Starts a fake that accepts {@code token}. */
  public static FakeGitHub start(String token) {
    return new FakeGitHub(token);
  }

  public String baseUrl() {
    return base;
  }

  public WireMockServer server() {
    return server;
  }

  /**
   * The next {@code times} requests matching {@code method} and {@code pathRegex} get this answer.
   */
  public synchronized void failNext(
      String method, String pathRegex, int status, String body, int times) {
    failNext(method, pathRegex, status, Map.of(), body, times);
  }

  /**
   * Like {@link #failNext(String, String, int, String, int)}, with response headers (rate limits).
   */
  public synchronized void failNext(
      String method,
      String pathRegex,
      int status,
      Map<String, String> headers,
      String body,
      int times) {
    for (int i = 0; i < times; i++) {
      faults.add(new Fault(method, Pattern.compile(pathRegex), status, headers, body));
    }
  }

  /**
   * The next {@code times} requests matching {@code method} and {@code pathRegex} get their usual
   * answer, but slowly: the headers at once and the body in pieces spread over {@code spread} (a
   * network that trickles).
   */
  public synchronized void trickleNext(
      String method, String pathRegex, Duration spread, int times) {
    for (int i = 0; i < times; i++) {
      trickles.add(new Trickle(method, Pattern.compile(pathRegex), spread));
    }
  }

  /**
   * Runs {@code action} just before the next request matching {@code method} and {@code pathRegex}
   * is answered (a race).
   */
  public synchronized void beforeNext(String method, String pathRegex, Runnable action) {
    hooks.add(new Hook(method, Pattern.compile(pathRegex), action));
  }

  /**
   * Runs {@code action} just after the next request matching {@code method} and {@code pathRegex}
   * took effect, before its answer is sent (a race the request's caller cannot see).
   */
  public synchronized void afterNext(String method, String pathRegex, Runnable action) {
    afterHooks.add(new Hook(method, Pattern.compile(pathRegex), action));
  }

  /**
   * Serves the Git Data API (blobs, trees, commits, refs) and branch reads from the bare repository
   * {@code bare}, the same one tests use as the git remote: see {@link FakeGitData}.
   */
  public synchronized FakeGitHub backedBy(java.nio.file.Path bare) {
    gitData = new FakeGitData(bare, base + REPO);
    return this;
  }

  /** GitHub will report {@code branch} as protected and refuse API ref updates to it. */
  public synchronized void protect(String branch) {
    gitData.protect(branch);
  }

  /** Commits made through the Git Data API, in order. */
  public synchronized List<FakeGitData.MadeCommit> apiCommits() {
    return gitData.made();
  }

  /** A person merges pull request {@code number} as its branch stands now; GitHub closes it. */
  public synchronized void merge(int number) {
    Pull p = pulls.get(number);
    p.open = false;
    p.mergedSha = gitData.tip(p.head).orElseThrow();
  }

  /** Every request received, in order, as {@code METHOD /path} (query left out). */
  public synchronized List<String> requests() {
    return List.copyOf(requests);
  }

  /** Forgets the requests received so far. */
  public synchronized void clearRequests() {
    requests.clear();
    server.resetRequests();
  }

  public synchronized Set<String> assignees(int number) {
    return Set.copyOf(pulls.get(number).assignees);
  }

  /** Opens a pull request as an earlier run would have, straight into the fake's state. */
  public synchronized HostedPullRequest seedOpen(PullRequestDraft draft) {
    Pull pull = newPull(draft.head(), draft.base(), draft.title(), draft.body(), draft.draft());
    pull.labels.addAll(draft.labels());
    pull.reviewers.addAll(draft.reviewers());
    pull.teams.addAll(draft.teamReviewers());
    return view(pull);
  }

  public synchronized Optional<HostedPullRequest> hosted(int number) {
    return Optional.ofNullable(pulls.get(number)).map(FakeGitHub::view);
  }

  @Override
  public void close() {
    server.stop();
  }

  private Pull newPull(String head, String baseRef, String title, String body, boolean draft) {
    Pull pull = new Pull();
    pull.number = nextNumber++;
    pull.head = head;
    pull.baseRef = baseRef;
    pull.title = title;
    pull.body = body;
    pull.draft = draft;
    pulls.put(pull.number, pull);
    branches.add(head);
    return pull;
  }

  private static HostedPullRequest view(Pull p) {
    return new HostedPullRequest(
        p.number,
        p.head,
        p.baseRef,
        p.title,
        p.body,
        p.open,
        p.draft,
        p.labels,
        p.reviewers,
        p.teams);
  }

  // ---- routing -------------------------------------------------------------------------------

  private static final String REPO = "/repos/" + REPOSITORY;
  private static final Pattern PULL = Pattern.compile(REPO + "/pulls/(\\d+)");
  private static final Pattern LABELS = Pattern.compile(REPO + "/issues/(\\d+)/labels");
  private static final Pattern REVIEWERS =
      Pattern.compile(REPO + "/pulls/(\\d+)/requested_reviewers");
  private static final Pattern REF = Pattern.compile(REPO + "/git/refs/heads/(.+)");
  private static final Pattern USER = Pattern.compile("/users/([^/]+)");
  private static final Pattern BRANCH = Pattern.compile(REPO + "/branches/(.+)");
  private static final Pattern ASSIGNEES = Pattern.compile(REPO + "/issues/(\\d+)/assignees");
  private static final Pattern TEAM = Pattern.compile("/orgs/" + OWNER + "/teams/([^/]+)");

  private final class Router implements ResponseDefinitionTransformerV2 {
    @Override
    public String getName() {
      return "fake-github";
    }

    @Override
    public ResponseDefinition transform(ServeEvent event) {
      synchronized (FakeGitHub.this) {
        try {
          ResponseDefinition answer = route(event.getRequest());
          runAfterHooks(event.getRequest());
          return trickled(event.getRequest(), answer);
        } catch (IOException e) {
          return answer(400, "{\"message\":\"Problems parsing JSON\"}");
        }
      }
    }
  }

  private void runAfterHooks(Request request) {
    String url = request.getUrl();
    String path = url.indexOf('?') < 0 ? url : url.substring(0, url.indexOf('?'));
    for (Iterator<Hook> it = afterHooks.iterator(); it.hasNext(); ) {
      Hook hook = it.next();
      if (hook.method().equals(request.getMethod().getName())
          && hook.path().matcher(path).matches()) {
        it.remove();
        hook.action().run();
      }
    }
  }

  private ResponseDefinition trickled(Request request, ResponseDefinition answer) {
    String url = request.getUrl();
    String path = url.indexOf('?') < 0 ? url : url.substring(0, url.indexOf('?'));
    for (Iterator<Trickle> it = trickles.iterator(); it.hasNext(); ) {
      Trickle trickle = it.next();
      if (trickle.method().equals(request.getMethod().getName())
          && trickle.path().matcher(path).matches()) {
        it.remove();
        return ResponseDefinitionBuilder.like(answer)
            .withChunkedDribbleDelay(20, (int) trickle.spread().toMillis())
            .build();
      }
    }
    return answer;
  }

  private ResponseDefinition route(Request request) throws IOException {
    String method = request.getMethod().getName();
    String url = request.getUrl();
    int q = url.indexOf('?');
    String path = q < 0 ? url : url.substring(0, q);
    Map<String, String> query = q < 0 ? Map.of() : parseQuery(url.substring(q + 1));
    requests.add(method + " " + path);
    if (!("token " + token).equals(request.getHeader("Authorization"))) {
      return answer(
          401,
          "{\"message\":\"Bad"
              + " credentials\",\"documentation_url\":\"https://docs.github.com/rest\"}");
    }
    for (Iterator<Fault> it = faults.iterator(); it.hasNext(); ) {
      Fault fault = it.next();
      if (fault.method().equals(method) && fault.path().matcher(path).matches()) {
        it.remove();
        ResponseDefinitionBuilder fail =
            ResponseDefinitionBuilder.responseDefinition()
                .withStatus(fault.status())
                .withHeader(
                    "Content-Type",
                    fault.body().startsWith("<") ? "text/html" : "application/json; charset=utf-8")
                .withBody(fault.body());
        fault.headers().forEach(fail::withHeader);
        return fail.build();
      }
    }
    for (Iterator<Hook> it = hooks.iterator(); it.hasNext(); ) {
      Hook hook = it.next();
      if (hook.method().equals(method) && hook.path().matcher(path).matches()) {
        it.remove();
        hook.action().run();
      }
    }
    JsonNode in =
        request.getBodyAsString().isBlank()
            ? JSON.createObjectNode()
            : JSON.readTree(request.getBodyAsString());
    Matcher m;
    if (gitData != null && path.startsWith(REPO + "/")) {
      Optional<FakeGitData.Answer> git = gitData.route(method, path.substring(REPO.length()), in);
      if (git.isPresent()) {
        if (method.equals("DELETE") && git.get().status() == 204) {
          String branch = path.substring((REPO + "/git/refs/heads/").length());
          pulls.values().stream().filter(p -> p.head.equals(branch)).forEach(p -> p.open = false);
          return ResponseDefinitionBuilder.responseDefinition().withStatus(204).build();
        }
        return answer(git.get().status(), git.get().json());
      }
    }
    if (method.equals("GET") && (m = BRANCH.matcher(path)).matches()) {
      if (!branches.contains(m.group(1))) {
        return answer(
            404,
            "{\"message\":\"Branch not"
                + " found\",\"documentation_url\":\"https://docs.github.com/rest/branches/branches#get-a-branch\"}");
      }
      return answer(
          200,
          "{\"name\":\""
              + m.group(1)
              + "\",\"commit\":{\"sha\":\""
              + "0".repeat(40)
              + "\"},\"protected\":false}");
    }
    if (method.equals("POST") && (m = ASSIGNEES.matcher(path)).matches()) {
      Pull p = pulls.get(Integer.parseInt(m.group(1)));
      if (p == null) {
        return notFound();
      }
      in.path("assignees").forEach(a -> p.assignees.add(a.asText()));
      return answer(201, render(p).toString());
    }
    if (method.equals("GET") && path.equals("/user")) {
      return answer(403, "{\"message\":\"Resource not accessible by integration\"}");
    }
    if (method.equals("GET") && path.equals(REPO)) {
      return answer(200, pullTemplate.get("base").get("repo").toString());
    }
    if (method.equals("GET") && path.equals(REPO + "/pulls")) {
      ArrayNode list = JSON.createArrayNode();
      for (Pull p : pulls.values()) {
        String state = query.getOrDefault("state", "open");
        boolean stateOk = state.equals("all") || state.equals("open") == p.open;
        boolean headOk =
            !query.containsKey("head") || query.get("head").equals(OWNER + ":" + p.head);
        boolean baseOk = !query.containsKey("base") || query.get("base").equals(p.baseRef);
        if (stateOk && headOk && baseOk) {
          ObjectNode item = render(p);
          item.retain(listedKeys); // the list endpoint leaves out mergeable_state & co.
          list.add(item);
        }
      }
      return answer(200, list.toString());
    }
    if (method.equals("POST") && path.equals(REPO + "/pulls")) {
      String head = in.path("head").asText();
      String baseRef = in.path("base").asText();
      boolean exists =
          pulls.values().stream()
              .anyMatch(p -> p.open && p.head.equals(head) && p.baseRef.equals(baseRef));
      if (exists) {
        return answer(
            422, alreadyExistsBody.replace("hub4j-test-org:test/stable", OWNER + ":" + head));
      }
      Pull p =
          newPull(
              head,
              baseRef,
              in.path("title").asText(),
              in.path("body").asText(),
              in.path("draft").asBoolean(false));
      return answer(201, render(p).toString());
    }
    if ((m = PULL.matcher(path)).matches()) {
      Pull p = pulls.get(Integer.parseInt(m.group(1)));
      if (p == null) {
        return notFound();
      }
      if (method.equals("PATCH")) {
        if (in.has("title")) {
          p.title = in.get("title").asText();
        }
        if (in.has("body")) {
          p.body = in.get("body").asText();
        }
        if (in.has("state")) {
          p.open = in.get("state").asText().equals("open");
        }
      }
      return method.equals("GET") || method.equals("PATCH")
          ? answer(200, render(p).toString())
          : notFound();
    }
    if (method.equals("POST") && (m = LABELS.matcher(path)).matches()) {
      Pull p = pulls.get(Integer.parseInt(m.group(1)));
      if (p == null) {
        return notFound();
      }
      in.path("labels").forEach(l -> p.labels.add(l.asText()));
      return answer(200, labels(p).toString());
    }
    if (method.equals("POST") && (m = REVIEWERS.matcher(path)).matches()) {
      Pull p = pulls.get(Integer.parseInt(m.group(1)));
      if (p == null) {
        return notFound();
      }
      in.path("reviewers").forEach(r -> p.reviewers.add(r.asText()));
      in.path("team_reviewers").forEach(t -> p.teams.add(t.asText()));
      return answer(201, render(p).toString());
    }
    if (method.equals("GET") && (m = USER.matcher(path)).matches()) {
      return answer(200, user(m.group(1)).toString());
    }
    if (method.equals("GET") && path.equals("/orgs/" + OWNER)) {
      return answer(200, pullTemplate.get("base").get("repo").get("owner").toString());
    }
    if (method.equals("GET") && (m = TEAM.matcher(path)).matches()) {
      return answer(200, team(m.group(1)).toString());
    }
    if ((m = REF.matcher(path)).matches()) {
      String branch = m.group(1);
      if (!branches.contains(branch)) {
        return answer(404, "{\"message\":\"Not Found\"}");
      }
      if (method.equals("DELETE")) {
        branches.remove(branch);
        // GitHub closes open pull requests whose head branch is deleted.
        pulls.values().stream().filter(p -> p.head.equals(branch)).forEach(p -> p.open = false);
        return ResponseDefinitionBuilder.responseDefinition().withStatus(204).build();
      }
      ObjectNode ref = refTemplate.deepCopy();
      ref.put("ref", "refs/heads/" + branch);
      ref.put("url", base + REPO + "/git/refs/heads/" + branch);
      return answer(200, ref.toString());
    }
    unrouted.add(method + " " + url);
    return notFound();
  }

  /** Requests this fake does not model (answered 404): a sign the adapter calls something new. */
  public synchronized List<String> unrouted() {
    return List.copyOf(unrouted);
  }

  private ObjectNode render(Pull p) {
    ObjectNode pr = pullTemplate.deepCopy();
    pr.put("number", p.number);
    pr.put("url", base + REPO + "/pulls/" + p.number);
    pr.put("issue_url", base + REPO + "/issues/" + p.number);
    pr.put("html_url", "https://github.com/" + REPOSITORY + "/pull/" + p.number);
    pr.put("state", p.open ? "open" : "closed");
    pr.put("title", p.title);
    pr.put("body", p.body);
    pr.put("draft", p.draft);
    if (p.mergedSha != null) {
      pr.put("merged", true);
      pr.put("merged_at", "2026-11-22T07:00:00Z");
    } else {
      pr.putNull("merged_at");
      pr.put("merged", false);
    }
    ObjectNode head = (ObjectNode) pr.get("head");
    head.put("ref", p.head);
    head.put("label", OWNER + ":" + p.head);
    if (p.mergedSha != null) {
      head.put("sha", p.mergedSha);
    } else if (gitData != null) {
      gitData.tip(p.head).ifPresent(sha -> head.put("sha", sha));
    }
    ArrayNode assignees = pr.putArray("assignees");
    p.assignees.forEach(login -> assignees.add(user(login)));
    ObjectNode baseNode = (ObjectNode) pr.get("base");
    baseNode.put("ref", p.baseRef);
    baseNode.put("label", OWNER + ":" + p.baseRef);
    pr.set("labels", labels(p));
    ArrayNode reviewers = pr.putArray("requested_reviewers");
    p.reviewers.forEach(login -> reviewers.add(user(login)));
    ArrayNode teams = pr.putArray("requested_teams");
    p.teams.forEach(slug -> teams.add(team(slug)));
    return pr;
  }

  private ArrayNode labels(Pull p) {
    ArrayNode labels = JSON.createArrayNode();
    for (String name : p.labels) {
      ObjectNode label = labelTemplate.deepCopy();
      label.put("name", name);
      label.put("url", base + REPO + "/labels/" + name);
      labels.add(label);
    }
    return labels;
  }

  private ObjectNode user(String login) {
    ObjectNode user = reviewerTemplate.deepCopy();
    user.put("login", login);
    user.put("url", base + "/users/" + login);
    return user;
  }

  private ObjectNode team(String slug) {
    ObjectNode team = JSON.createObjectNode();
    team.put("id", Math.abs(slug.hashCode()));
    team.put("node_id", "T_fake_" + slug);
    team.put("slug", slug);
    team.put("name", slug);
    team.put("url", base + "/orgs/" + OWNER + "/teams/" + slug);
    return team;
  }

  private static ResponseDefinition notFound() {
    return answer(
        404, "{\"message\":\"Not Found\",\"documentation_url\":\"https://docs.github.com/rest\"}");
  }

  private static ResponseDefinition answer(int status, String json) {
    return ResponseDefinitionBuilder.responseDefinition()
        .withStatus(status)
        .withHeader("Content-Type", "application/json; charset=utf-8")
        .withBody(json)
        .build();
  }

  private static Map<String, String> parseQuery(String query) {
    Map<String, String> params = new HashMap<>();
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        params.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return params;
  }

  /** A recorded file, with the recording host's URLs pointed at this server. */
  private JsonNode recorded(String path) {
    try (InputStream in = FakeGitHub.class.getResourceAsStream(RECORDED + path)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + RECORDED + path);
      }
      String text =
          new String(in.readAllBytes(), StandardCharsets.UTF_8)
              .replaceAll("http://localhost:\\d+", base)
              .replace("https://api.github.com", base);
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private JsonNode inlineBody(String mappingPath) {
    try {
      return JSON.readTree(recorded(mappingPath).get("response").get("body").asText());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Request bodies the recording allows for {@code POST /pulls}: its keys, plus {@code draft}. */
  public List<String> recordedCreateKeys() {
    List<String> keys = new ArrayList<>();
    try {
      JSON.readTree(
              recorded("GHPullRequestTest/createPullRequest/mappings/4-r_h_g_pulls.json")
                  .get("request")
                  .get("bodyPatterns")
                  .get(0)
                  .get("equalToJson")
                  .asText())
          .fieldNames()
          .forEachRemaining(keys::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    keys.add("draft");
    return keys;
  }

  /** The exact JSON hub4j sent when it closed a pull request in the recording. */
  public String recordedCloseBody() {
    return recorded("GHPullRequestTest/createPullRequest/mappings/7-r_h_g_pulls_273.json")
        .get("request")
        .get("bodyPatterns")
        .get(0)
        .get("equalToJson")
        .asText();
  }
}
