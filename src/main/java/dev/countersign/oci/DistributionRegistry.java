package dev.countersign.oci;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.support.BoundedBody;
import dev.countersign.support.Json;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A small OCI distribution-spec client on {@code java.net.http}: blob HEAD/GET/upload, manifest
 * HEAD/GET/PUT, and the registry token flow ({@code WWW-Authenticate: Bearer realm=…} answered with
 * a token fetched using the {@link RegistryCredentials}, or {@code Basic}).
 *
 * <p>Why our own client and not a library: see the comment in pom.xml. In short, the manifest bytes
 * must be exactly ours (their digest is what gets signed and pinned), which jib-core's internal
 * registry client does not allow, and the ORAS Java SDK would bring a second Jackson (3.x),
 * metrics, caching and native compression libraries into a CLI whose start time and image size are
 * budgeted.
 *
 * <p>Safety: HTTPS always, plain HTTP only for loopback registries and only when asked ({@code
 * --plain-http}); every URL the registry hands back (token realm, redirect, upload location) passes
 * one check before anything is sent there ({@link #registryGiven}: http or https with a host, plain
 * HTTP only from a plain-HTTP registry to loopback); redirects (blob downloads from a CDN) are
 * followed by hand without the {@code Authorization} header, and a challenge from the host a
 * redirect led to is never answered (only the registry's own challenges get credentials); each
 * request, headers and body, has one deadline; responses are size-capped; every blob and
 * digest-addressed manifest read is checked against its digest. Thread-safe.
 */
public final class DistributionRegistry implements Registry {

  static final String OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
  private static final String ACCEPT =
      String.join(
          ", ",
          OCI_MANIFEST,
          "application/vnd.oci.image.index.v1+json",
          "application/vnd.docker.distribution.manifest.v2+json",
          "application/vnd.docker.distribution.manifest.list.v2+json");
  private static final long MAX_MANIFEST_BYTES = 4L * 1024 * 1024;
  private static final int MAX_REDIRECTS = 5;
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = Json.mapper();
  private static final Pattern CHALLENGE_PARAM = Pattern.compile("([A-Za-z_]+)=\"([^\"]*)\"");
  private static final Pattern TOKEN = Pattern.compile("[\\x21-\\x7E]+");

  private final String registry;
  private final URI base;
  private final Optional<RegistryCredentials> credentials;
  private final HttpClient http;
  private final Duration timeout;
  private final Map<String, String> tokens = new ConcurrentHashMap<>();
  private final AtomicInteger blobWrites = new AtomicInteger();
  private final AtomicInteger manifestWrites = new AtomicInteger();

  /**
   * @param reference names the registry
   * @param plainHttp use {@code http://}; refused unless the registry is on loopback
   * @throws UsageProblem for plain HTTP to a registry that is not on loopback
   */
  public DistributionRegistry(
      OciReference reference, boolean plainHttp, Optional<RegistryCredentials> credentials) {
    this(reference, plainHttp, credentials, TIMEOUT);
  }

  /**
   * Like the public constructor, with {@code timeout} as the deadline of each request, from sending
   * it to the last byte of its answer (tests pass a short one).
   */
  DistributionRegistry(
      OciReference reference,
      boolean plainHttp,
      Optional<RegistryCredentials> credentials,
      Duration timeout) {
    if (plainHttp && !reference.isLoopback()) {
      throw new UsageProblem(
          "--plain-http is only allowed for a registry on this machine (localhost, 127.0.0.1, ::1),"
              + " not "
              + reference.registry(),
          "use the registry over HTTPS");
    }
    this.registry = reference.registry();
    this.base = URI.create((plainHttp ? "http://" : "https://") + registry);
    this.credentials = credentials;
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(15))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public boolean blobExists(String repository, String digest) {
    String action = "checking for blob " + digest + " in " + repository;
    Reply response = pull("HEAD", repository, "blobs", digest, null, 0, action);
    if (response.statusCode() == 404) {
      return false;
    }
    expect(response, 200, action);
    return true;
  }

  @Override
  public void pushBlob(String repository, String digest, byte[] bytes) {
    String action = "uploading blob " + digest + " to " + repository;
    Reply start =
        push(
            "POST",
            repository,
            path(repository, "blobs", "uploads/"),
            HttpRequest.BodyPublishers.noBody(),
            Map.of("Content-Length", "0"),
            0,
            action);
    expect(start, 202, action);
    String location =
        start
            .headers()
            .firstValue("Location")
            .orElseThrow(
                () ->
                    new RemoteProblem(
                        "Registry "
                            + registry
                            + " started an upload without a Location header while "
                            + action,
                        null));
    URI upload = registryGiven(base, location, "upload location", action);
    if (!sameOrigin(upload)) {
      throw new RemoteProblem(
          "Registry "
              + registry
              + " sent the upload to another host ("
              + upload.getHost()
              + ") while "
              + action,
          "perhaps you should check the registry address");
    }
    String separator = upload.getRawQuery() == null ? "?" : "&";
    URI put =
        URI.create(
            upload + separator + "digest=" + URLEncoder.encode(digest, StandardCharsets.UTF_8));
    Reply done =
        push(
            "PUT",
            repository,
            put,
            HttpRequest.BodyPublishers.ofByteArray(bytes),
            Map.of("Content-Type", "application/octet-stream"),
            0,
            action);
    expect(done, 201, action);
    blobWrites.incrementAndGet();
  }

  @Override
  public byte[] blob(String repository, String digest, long maxBytes) {
    String action = "downloading blob " + digest + " from " + repository;
    Reply response = pull("GET", repository, "blobs", digest, null, maxBytes, action);
    expect(response, 200, action);
    byte[] bytes = response.body();
    String actual = Sha256.digest(bytes);
    if (!actual.equals(digest)) {
      throw mismatch("blob", digest, repository, actual);
    }
    return bytes;
  }

  @Override
  public Optional<String> manifestDigest(String repository, String reference) {
    String action = "looking up " + repository + ":" + reference;
    Reply response = pull("HEAD", repository, "manifests", reference, ACCEPT, 0, action);
    if (response.statusCode() == 404) {
      return Optional.empty();
    }
    expect(response, 200, action);
    Optional<String> digest = response.headers().firstValue("Docker-Content-Digest");
    if (digest.isPresent() && OciReference.DIGEST.matcher(digest.get()).matches()) {
      return digest;
    }
    return manifest(repository, reference).map(Manifest::digest);
  }

  @Override
  public Optional<Manifest> manifest(String repository, String reference) {
    String action = "downloading manifest " + repository + ":" + reference;
    Reply response =
        pull("GET", repository, "manifests", reference, ACCEPT, MAX_MANIFEST_BYTES, action);
    if (response.statusCode() == 404) {
      return Optional.empty();
    }
    expect(response, 200, action);
    byte[] bytes = response.body();
    String digest = Sha256.digest(bytes);
    if (reference.startsWith("sha256:") && !reference.equals(digest)) {
      throw mismatch("manifest", reference, repository, digest);
    }
    String mediaType =
        response.headers().firstValue("Content-Type").orElse("").split(";")[0].strip();
    return Optional.of(new Manifest(bytes, mediaType, digest));
  }

  @Override
  public String putManifest(String repository, String reference, String mediaType, byte[] bytes) {
    String action = "storing manifest " + repository + ":" + reference;
    Reply response =
        push(
            "PUT",
            repository,
            path(repository, "manifests", reference),
            HttpRequest.BodyPublishers.ofByteArray(bytes),
            Map.of("Content-Type", mediaType),
            MAX_MANIFEST_BYTES,
            action);
    if (response.statusCode() != 201
        && !reference.startsWith("sha256:")
        && refusesTagUpdate(response)) {
      throw new EnvironmentProblem(
          "Registry "
              + registry
              + " refused to point tag "
              + reference
              + " of "
              + repository
              + " at a new manifest ("
              + response.statusCode()
              + " "
              + errorText(response)
              + ")",
          "perhaps the tag is immutable: publish under a new tag, or without a tag (pinned by"
              + " digest only)");
    }
    expect(response, 201, action);
    manifestWrites.incrementAndGet();
    String digest = Sha256.digest(bytes);
    response
        .headers()
        .firstValue("Docker-Content-Digest")
        .ifPresent(
            returned -> {
              if (!returned.equals(digest)) {
                throw new RemoteProblem(
                    "Registry "
                        + registry
                        + " stored manifest "
                        + repository
                        + ":"
                        + reference
                        + " as "
                        + returned
                        + ", not as the digest of the bytes sent ("
                        + digest
                        + ")",
                    "perhaps the registry rewrites manifests; use another registry");
              }
            });
    return digest;
  }

  @Override
  public Writes writes() {
    return new Writes(blobWrites.get(), manifestWrites.get());
  }

  /**
   * A read whose bytes do not hash to the digest that addressed them: altered content, which
   * verification reports as a rejection (not a failure of the registry).
   */
  public static final class ContentMismatch extends RuntimeException {
    ContentMismatch(String message) {
      super(message);
    }
  }

  private ContentMismatch mismatch(String what, String address, String repository, String actual) {
    return new ContentMismatch(
        what
            + " "
            + address
            + " from "
            + registry
            + "/"
            + repository
            + " does not match its digest (got "
            + actual
            + ")");
  }

  /** A read: {@code method} on {@code /v2/<repository>/<kind>/<reference>} with pull rights. */
  private Reply pull(
      String method,
      String repository,
      String kind,
      String reference,
      String accept,
      long maxBytes,
      String action) {
    return send(
        repository,
        "pull",
        new Call(method, path(repository, kind, reference), accept, null, Map.of(), maxBytes),
        action);
  }

  /** A write: {@code method} on {@code uri} with pull and push rights. */
  private Reply push(
      String method,
      String repository,
      URI uri,
      HttpRequest.BodyPublisher body,
      Map<String, String> headers,
      long maxBytes,
      String action) {
    return send(
        repository, "pull,push", new Call(method, uri, null, body, headers, maxBytes), action);
  }

  /**
   * One request to the registry: {@code accept} and {@code body} may be null; the answer is read up
   * to {@code maxBytes}.
   */
  private record Call(
      String method,
      URI uri,
      String accept,
      HttpRequest.BodyPublisher body,
      Map<String, String> headers,
      long maxBytes) {}

  private URI path(String repository, String kind, String reference) {
    return base.resolve("/v2/" + repository + "/" + kind + "/" + reference);
  }

  private boolean sameOrigin(URI uri) {
    return uri.getScheme().equals(base.getScheme())
        && uri.getRawAuthority().equalsIgnoreCase(base.getRawAuthority());
  }

  /**
   * A URL the registry handed us (a token realm, a redirect, an upload location), resolved against
   * {@code from}: the one check for all of them, made before anything is sent there. It must parse,
   * name an {@code http} or {@code https} host, and may be plain HTTP only when the registry itself
   * is (a loopback registry with {@code --plain-http}) and its host is loopback too, so credentials
   * and artifacts never travel unencrypted to another host, nor from HTTPS down to HTTP.
   *
   * @param what what the registry sent, for the message ("token realm", "redirect", ...)
   * @throws RemoteProblem naming what the registry sent (printable only), when it fails the check
   */
  private URI registryGiven(URI from, String text, String what, String action) {
    return registryGiven(registry, base, from, text, what, action);
  }

  /**
   * {@link #registryGiven(URI, String, String, String)} for registry {@code registry} at {@code
   * base}.
   */
  static URI registryGiven(
      String registry, URI base, URI from, String text, String what, String action) {
    String quoted = "(\"" + printable(text) + "\") while " + action;
    String hint = "perhaps the registry is misconfigured; tell its operator";
    URI uri;
    try {
      uri = from.resolve(new URI(text));
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw new RemoteProblem(
          "Registry " + registry + " sent a malformed " + what + " " + quoted, hint, e);
    }
    String scheme = Optional.ofNullable(uri.getScheme()).orElse("").toLowerCase(Locale.ROOT);
    if (!scheme.equals("https") && !scheme.equals("http")) {
      throw new RemoteProblem(
          "Registry "
              + registry
              + " sent a "
              + what
              + " whose scheme is not http or https "
              + quoted,
          hint);
    }
    if (uri.getHost() == null || uri.getPort() > 65535) {
      throw new RemoteProblem(
          "Registry " + registry + " sent a malformed " + what + " " + quoted, hint);
    }
    String host = uri.getHost();
    String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    if (scheme.equals("http")
        && !(base.getScheme().equals("http")
            && OciReference.isLoopbackHost(bare.toLowerCase(Locale.ROOT)))) {
      throw new RemoteProblem(
          "Registry "
              + registry
              + " sent a "
              + what
              + (base.getScheme().equals("http")
                  ? " over plain HTTP to another host ("
                  : " that leaves HTTPS for plain HTTP (")
              + printable(host)
              + ") while "
              + action,
          "refusing to send credentials or artifacts unencrypted: plain HTTP is only for a registry"
              + " and its services on this machine (--plain-http)");
    }
    return uri;
  }

  private static boolean refusesTagUpdate(Reply response) {
    int status = response.statusCode();
    String body =
        new String(response.body() == null ? new byte[0] : response.body(), StandardCharsets.UTF_8)
            .toLowerCase(Locale.ROOT);
    return (status == 400 || status == 403 || status == 409 || status == 412)
        && (body.contains("immutable")
            || body.contains("already exists")
            || body.contains("tag_invalid"));
  }

  private Reply send(String repository, String actions, Call call, String action) {
    String scope = "repository:" + repository + ":" + actions;
    Reply response = exchange(call, authorization(scope), action);
    refusedAfterRedirect(response, action);
    if (response.statusCode() == 401) {
      String challenge = response.headers().firstValue("WWW-Authenticate").orElse("");
      String authorization = authenticate(challenge, scope, action);
      response = exchange(call, Optional.of(authorization), action);
      refusedAfterRedirect(response, action);
      if (response.statusCode() == 401) {
        throw denied(scope, response);
      }
    }
    if (response.statusCode() == 403) {
      throw denied(scope, response);
    }
    return response;
  }

  /**
   * A 401 or 403 from another host that a redirect led to (blob storage): its challenge is not the
   * registry's, so it is never answered; answering would send the registry credentials to the token
   * service that other host names, and put that service's token where the registry's belongs.
   */
  private void refusedAfterRedirect(Reply response, String action) {
    int status = response.statusCode();
    if ((status == 401 || status == 403) && !sameOrigin(response.uri())) {
      throw new RemoteProblem(
          "Registry "
              + registry
              + " redirected to "
              + printable(response.uri().getRawAuthority())
              + ", which refused ("
              + status
              + ") while "
              + action,
          "perhaps the registry's storage is misconfigured; tell its operator, or retry later");
    }
  }

  private Optional<String> authorization(String scope) {
    return Optional.ofNullable(tokens.get(scope));
  }

  /** Answers a 401 challenge; remembers the result for {@code scope}. */
  private String authenticate(String challenge, String scope, String action) {
    String lower = challenge.toLowerCase(Locale.ROOT);
    String authorization;
    if (lower.startsWith("basic")) {
      authorization = credentials.orElseThrow(() -> denied(scope, null)).basic();
    } else if (lower.startsWith("bearer")) {
      Map<String, String> params = new LinkedHashMap<>();
      Matcher m = CHALLENGE_PARAM.matcher(challenge);
      while (m.find()) {
        params.put(m.group(1).toLowerCase(Locale.ROOT), m.group(2));
      }
      String realm = params.get("realm");
      if (realm == null) {
        throw new RemoteProblem(
            "Registry " + registry + " asked for a bearer token without naming a realm", null);
      }
      // Checked before anything is sent: the realm receives the credentials.
      URI realmUri = registryGiven(base, realm, "token realm", action);
      StringBuilder query = new StringBuilder();
      if (params.containsKey("service")) {
        query
            .append("service=")
            .append(URLEncoder.encode(params.get("service"), StandardCharsets.UTF_8))
            .append('&');
      }
      query.append("scope=").append(URLEncoder.encode(scope, StandardCharsets.UTF_8));
      String checkedRealm = realmUri.toString();
      URI tokenUri = URI.create(checkedRealm + (checkedRealm.contains("?") ? "&" : "?") + query);
      HttpRequest.Builder request = HttpRequest.newBuilder(tokenUri).timeout(timeout).GET();
      credentials.ifPresent(c -> request.header("Authorization", c.basic()));
      Reply response =
          call(
              request.build(), 1024 * 1024, "fetching a registry token from " + realmUri.getHost());
      if (response.statusCode() == 401 || response.statusCode() == 403) {
        throw denied(scope, response);
      }
      if (response.statusCode() != 200) {
        throw new RemoteProblem(
            "The token service of registry "
                + registry
                + " answered "
                + response.statusCode()
                + " while authenticating for "
                + scope,
            "perhaps you should retry later");
      }
      String token;
      try {
        JsonNode json = JSON.readTree(response.body());
        token = json.path("token").asText(json.path("access_token").asText(""));
      } catch (IOException e) {
        token = "";
      }
      if (token.isEmpty()) {
        throw new RemoteProblem(
            "The token service of registry " + registry + " returned no token", null);
      }
      if (!TOKEN.matcher(token).matches()) {
        // It goes into a header: a line break or a non-ASCII character would not be sent anyway.
        throw new RemoteProblem(
            "The token service of registry "
                + registry
                + " returned a token that is not printable ASCII",
            null);
      }
      authorization = "Bearer " + token;
    } else {
      throw new RemoteProblem(
          "Registry "
              + registry
              + " asked for an unsupported authentication scheme ("
              + printable(challenge.split(" ")[0])
              + ")",
          null);
    }
    tokens.put(scope, authorization);
    return authorization;
  }

  private EnvironmentProblem denied(String scope, Reply response) {
    String how =
        credentials
            .map(c -> "with the credentials from " + c.source())
            .orElse("anonymously (no credentials found)");
    return new EnvironmentProblem(
        "Registry "
            + registry
            + " denied access "
            + how
            + " for "
            + scope
            + (response == null
                ? ""
                : " (" + response.statusCode() + " " + errorText(response) + ")"),
        "perhaps you should log in (docker login / podman login "
            + registry
            + "), pass --registry-token, or give the token"
            + " push rights (GitHub: permissions: packages: write)");
  }

  private Reply exchange(Call call, Optional<String> authorization, String action) {
    URI target = call.uri();
    boolean sendAuthorization = true;
    for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(target)
              .timeout(timeout)
              .method(
                  call.method(),
                  call.body() == null ? HttpRequest.BodyPublishers.noBody() : call.body());
      if (call.accept() != null) {
        request.header("Accept", call.accept());
      }
      call.headers()
          .forEach(
              (name, value) -> {
                if (!name.equalsIgnoreCase("Content-Length")) {
                  request.header(name, value);
                }
              });
      if (sendAuthorization) {
        authorization.ifPresent(a -> request.header("Authorization", a));
      }
      Reply response = call(request.build(), call.maxBytes(), action);
      int status = response.statusCode();
      boolean redirect =
          status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
      if (!redirect || !(call.method().equals("GET") || call.method().equals("HEAD"))) {
        return response;
      }
      Optional<String> location = response.headers().firstValue("Location");
      if (location.isEmpty()) {
        return response;
      }
      URI next = registryGiven(target, location.get(), "redirect", action);
      // Credentials are for the registry only, never for the storage it redirects to.
      sendAuthorization = sendAuthorization && sameOrigin(next);
      target = next;
    }
    throw new RemoteProblem(
        "Registry "
            + registry
            + " redirected more than "
            + MAX_REDIRECTS
            + " times while "
            + action,
        null);
  }

  /**
   * Sends {@code request} and reads its body within one deadline ({@link #timeout}) for the whole
   * exchange: {@link HttpRequest#timeout} alone covers only the wait for the headers, so a registry
   * that trickles its body would otherwise hold the run forever.
   */
  private Reply call(HttpRequest request, long maxBytes, String action) {
    long limit = Math.max(maxBytes, 64 * 1024);
    CompletableFuture<HttpResponse<byte[]>> pending =
        http.sendAsync(request, info -> new BoundedBody(limit));
    try {
      HttpResponse<byte[]> response = pending.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return new Reply(response.uri(), response.statusCode(), response.headers(), response.body());
    } catch (TimeoutException e) {
      pending.cancel(true);
      throw slow(action, e);
    } catch (InterruptedException e) {
      pending.cancel(true);
      Thread.currentThread().interrupt();
      throw new RemoteProblem("Interrupted while " + action + " at registry " + registry, null, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof BoundedBody.TooLarge) {
        throw new RemoteProblem(
            "Registry " + registry + " sent more than " + limit + " bytes while " + action,
            "the artifact is larger than countersign accepts");
      }
      if (cause instanceof HttpConnectTimeoutException || cause instanceof ConnectException) {
        throw unreachable(action, (Exception) cause);
      }
      if (cause instanceof HttpTimeoutException) {
        throw slow(action, cause);
      }
      if (cause instanceof IOException) {
        throw unreachable(action, (Exception) cause);
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new IllegalStateException(cause);
    }
  }

  private RemoteProblem slow(String action, Throwable cause) {
    return new RemoteProblem(
        "Registry " + registry + " did not answer in time while " + action,
        "perhaps you should retry",
        cause);
  }

  private RemoteProblem unreachable(String action, Exception e) {
    return new RemoteProblem(
        "Registry "
            + registry
            + " is unreachable ("
            + base
            + ") while "
            + action
            + ": "
            + Optional.ofNullable(e.getMessage()).orElse(e.getClass().getSimpleName()),
        "perhaps you should check the registry address and network, or retry; a loopback registry"
            + " over HTTP needs --plain-http",
        e);
  }

  private void expect(Reply response, int status, String action) {
    if (response.statusCode() == status) {
      return;
    }
    if (response.statusCode() >= 500 || response.statusCode() == 429) {
      throw new RemoteProblem(
          "Registry "
              + registry
              + " failed ("
              + response.statusCode()
              + " "
              + errorText(response)
              + ") while "
              + action,
          "perhaps you should retry later");
    }
    throw new RemoteProblem(
        "Registry "
            + registry
            + " refused ("
            + response.statusCode()
            + " "
            + errorText(response)
            + ") while "
            + action,
        "perhaps the registry does not accept OCI artifacts (image manifest with artifactType), or"
            + " the repository name");
  }

  /**
   * The registry's own error code and message, if it sent the standard error JSON (printable only).
   */
  private static String errorText(Reply response) {
    byte[] body = response.body();
    if (body == null || body.length == 0) {
      return "";
    }
    try {
      JsonNode errors = JSON.readTree(body).path("errors");
      if (errors.isArray() && !errors.isEmpty()) {
        String text =
            errors.get(0).path("code").asText("") + ": " + errors.get(0).path("message").asText("");
        return printable(text);
      }
    } catch (IOException | RuntimeException e) {
      // not JSON: say nothing rather than echo arbitrary bytes
    }
    return "";
  }

  static String printable(String text) {
    StringBuilder out = new StringBuilder();
    text.codePoints()
        .limit(200)
        .forEach(c -> out.appendCodePoint(Character.isISOControl(c) ? '?' : c));
    return out.toString();
  }

  /** A response whose body has been read into memory (size-capped); {@code uri} answered it. */
  private record Reply(URI uri, int statusCode, HttpHeaders headers, byte[] body) {}
}
