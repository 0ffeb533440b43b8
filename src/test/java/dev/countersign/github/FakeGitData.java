package dev.countersign.github;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEditor;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * GitHub's Git Data API (blobs, trees, commits, refs) and branch reads, over a real bare git
 * repository: every object the API "creates" is a real git object in that repository, so a client
 * can fetch it with git and a test can compare trees. Shapes follow GitHub's REST reference
 * (docs.github.com/rest/git/*, /rest/branches/branches#get-a-branch): 201 with {@code sha} and
 * {@code url} on creation, 422 "Update is not a fast forward" for a {@code force: false} ref update
 * that is not one, 422 "Reference already exists", 404 "Not Found", and a protected branch refusing
 * ref updates with 422 "Protected branch update failed".
 *
 * <p>A commit made without {@code author}/{@code committer} is attributed to the token's bot and
 * reported {@code verification.verified: true}, as GitHub does for bot tokens; one with a custom
 * identity is not signed.
 */
public final class FakeGitData {

  static final PersonIdent BOT_IDENTITY =
      new PersonIdent(
          "github-actions[bot]",
          "41898282+github-actions[bot]@users.noreply.github.com",
          Instant.parse("2026-11-22T06:00:00Z"),
          ZoneOffset.UTC);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** An answer: status and JSON body. */
  record Answer(int status, String json) {}

  /** A commit made through the API. */
  public record MadeCommit(
      String sha, String tree, List<String> parents, String message, boolean verified) {}

  private final Path bare;
  private final String apiBase;
  private final Set<String> protectedBranches = new TreeSet<>();
  private final List<MadeCommit> made = new ArrayList<>();

  FakeGitData(Path bare, String apiBase) {
    this.bare = bare;
    this.apiBase = apiBase;
  }

  void protect(String branch) {
    protectedBranches.add(branch);
  }

  List<MadeCommit> made() {
    return List.copyOf(made);
  }

  Optional<String> tip(String branch) {
    try (Repository repo = open()) {
      Ref ref = repo.exactRef(Constants.R_HEADS + branch);
      return Optional.ofNullable(ref).map(r -> r.getObjectId().name());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Routes {@code path} (after {@code /repos/owner/name}); empty when it is not ours. */
  Optional<Answer> route(String method, String path, JsonNode in) throws IOException {
    try (Repository repo = open()) {
      if (method.equals("POST") && path.equals("/git/blobs")) {
        return Optional.of(blob(repo, in));
      }
      if (method.equals("POST") && path.equals("/git/trees")) {
        return Optional.of(tree(repo, in));
      }
      if (method.equals("POST") && path.equals("/git/commits")) {
        return Optional.of(commit(repo, in));
      }
      if (method.equals("POST") && path.equals("/git/refs")) {
        String ref = in.path("ref").asText();
        if (!ref.startsWith(Constants.R_HEADS) || repo.exactRef(ref) != null) {
          return Optional.of(
              new Answer(422, error("Reference already exists", "git/refs#create-a-reference")));
        }
        return Optional.of(updateRef(repo, ref, in.path("sha").asText(), true, true));
      }
      if (path.startsWith("/git/refs/heads/")) {
        String ref = Constants.R_HEADS + path.substring("/git/refs/heads/".length());
        Ref current = repo.exactRef(ref);
        if (current == null) {
          return Optional.of(new Answer(404, error("Not Found", "git/refs#get-a-reference")));
        }
        switch (method) {
          case "GET":
            return Optional.of(new Answer(200, refJson(ref, current.getObjectId().name())));
          case "PATCH":
            return Optional.of(
                updateRef(
                    repo, ref, in.path("sha").asText(), in.path("force").asBoolean(false), false));
          case "DELETE":
            {
              RefUpdate delete = repo.updateRef(ref);
              delete.setForceUpdate(true);
              delete.delete();
              return Optional.of(new Answer(204, ""));
            }
          default:
            return Optional.empty();
        }
      }
      if (method.equals("GET") && path.startsWith("/branches/")) {
        String branch = path.substring("/branches/".length());
        Ref current = repo.exactRef(Constants.R_HEADS + branch);
        if (current == null) {
          return Optional.of(
              new Answer(404, error("Branch not found", "branches/branches#get-a-branch")));
        }
        return Optional.of(new Answer(200, branchJson(branch, current.getObjectId().name())));
      }
      return Optional.empty();
    }
  }

  String branchJson(String branch, String sha) {
    ObjectNode b = JSON.createObjectNode();
    b.put("name", branch);
    ObjectNode commit = b.putObject("commit");
    commit.put("sha", sha);
    commit.put("url", apiBase + "/commits/" + sha);
    b.putObject("_links").put("self", apiBase + "/branches/" + branch);
    boolean isProtected = protectedBranches.contains(branch);
    b.put("protected", isProtected);
    ObjectNode protection = b.putObject("protection");
    protection.put("enabled", isProtected);
    protection
        .putObject("required_status_checks")
        .put("enforcement_level", isProtected ? "non_admins" : "off")
        .putArray("contexts");
    b.put("protection_url", apiBase + "/branches/" + branch + "/protection");
    return b.toString();
  }

  private Answer blob(Repository repo, JsonNode in) throws IOException {
    if (!in.hasNonNull("content")) {
      return new Answer(
          422,
          error("Invalid request.\n\n\"content\" wasn't supplied.", "git/blobs#create-a-blob"));
    }
    String encoding = in.path("encoding").asText("utf-8");
    byte[] bytes =
        encoding.equals("base64")
            ? Base64.getMimeDecoder().decode(in.get("content").asText())
            : in.get("content").asText().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    ObjectId id;
    try (ObjectInserter ins = repo.newObjectInserter()) {
      id = ins.insert(Constants.OBJ_BLOB, bytes);
      ins.flush();
    }
    ObjectNode out = JSON.createObjectNode();
    out.put("url", apiBase + "/git/blobs/" + id.name());
    out.put("sha", id.name());
    return new Answer(201, out.toString());
  }

  private Answer tree(Repository repo, JsonNode in) throws IOException {
    DirCache index = DirCache.newInCore();
    try (ObjectReader reader = repo.newObjectReader();
        ObjectInserter ins = repo.newObjectInserter()) {
      DirCacheBuilder builder = index.builder();
      if (in.hasNonNull("base_tree")) {
        ObjectId base = ObjectId.fromString(in.get("base_tree").asText());
        if (!reader.has(base, Constants.OBJ_TREE)) {
          return new Answer(422, error("Invalid tree info", "git/trees#create-a-tree"));
        }
        builder.addTree(new byte[0], DirCacheEntry.STAGE_0, reader, base);
      }
      builder.finish();
      DirCacheEditor editor = index.editor();
      for (JsonNode entry : in.path("tree")) {
        String path = entry.path("path").asText();
        if (!entry.has("sha") && !entry.has("content")) {
          return new Answer(
              422, error("Must supply either tree.sha or tree.content", "git/trees#create-a-tree"));
        }
        if (entry.has("sha") && entry.get("sha").isNull()) {
          editor.add(new DirCacheEditor.DeletePath(path));
          continue;
        }
        ObjectId blob;
        if (entry.has("content")) {
          blob =
              ins.insert(
                  Constants.OBJ_BLOB,
                  entry.get("content").asText().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } else {
          blob = ObjectId.fromString(entry.get("sha").asText());
          if (!reader.has(blob, Constants.OBJ_BLOB)) {
            return new Answer(
                422,
                error(
                    "tree.sha " + blob.name() + " is not a valid blob", "git/trees#create-a-tree"));
          }
        }
        FileMode mode =
            entry.path("mode").asText().equals("100755")
                ? FileMode.EXECUTABLE_FILE
                : FileMode.REGULAR_FILE;
        editor.add(
            new DirCacheEditor.PathEdit(path) {
              @Override
              public void apply(DirCacheEntry ent) {
                ent.setFileMode(mode);
                ent.setObjectId(blob);
              }
            });
      }
      editor.finish();
      ObjectId tree = index.writeTree(ins);
      ins.flush();
      ObjectNode out = JSON.createObjectNode();
      out.put("sha", tree.name());
      out.put("url", apiBase + "/git/trees/" + tree.name());
      ArrayNode entries = out.putArray("tree");
      try (TreeWalk walk = new TreeWalk(repo)) {
        walk.addTree(tree);
        while (walk.next()) {
          ObjectNode e = entries.addObject();
          e.put("path", walk.getPathString());
          e.put("mode", String.format("%06o", walk.getRawMode(0)).replaceFirst("^0", ""));
          e.put("type", walk.isSubtree() ? "tree" : "blob");
          e.put("sha", walk.getObjectId(0).name());
          e.put(
              "url",
              apiBase
                  + (walk.isSubtree() ? "/git/trees/" : "/git/blobs/")
                  + walk.getObjectId(0).name());
        }
      }
      out.put("truncated", false);
      return new Answer(201, out.toString());
    }
  }

  private Answer commit(Repository repo, JsonNode in) throws IOException {
    try (ObjectInserter ins = repo.newObjectInserter();
        RevWalk walk = new RevWalk(repo)) {
      CommitBuilder commit = new CommitBuilder();
      ObjectId tree = ObjectId.fromString(in.path("tree").asText());
      if (!repo.newObjectReader().has(tree, Constants.OBJ_TREE)) {
        return new Answer(422, error("Tree SHA does not exist", "git/commits#create-a-commit"));
      }
      commit.setTreeId(tree);
      List<String> parents = new ArrayList<>();
      for (JsonNode parent : in.path("parents")) {
        ObjectId id = ObjectId.fromString(parent.asText());
        if (!repo.newObjectReader().has(id, Constants.OBJ_COMMIT)) {
          return new Answer(
              422,
              error(
                  "Parent SHA does not exist or is not a commit object",
                  "git/commits#create-a-commit"));
        }
        commit.addParentId(id);
        parents.add(id.name());
      }
      boolean custom = in.has("author") || in.has("committer");
      PersonIdent author = in.has("author") ? person(in.get("author")) : BOT_IDENTITY;
      PersonIdent committer = in.has("committer") ? person(in.get("committer")) : BOT_IDENTITY;
      commit.setAuthor(author);
      commit.setCommitter(committer);
      commit.setMessage(in.path("message").asText());
      ObjectId id = ins.insert(commit);
      ins.flush();
      made.add(
          new MadeCommit(id.name(), tree.name(), parents, in.path("message").asText(), !custom));
      ObjectNode out = JSON.createObjectNode();
      out.put("sha", id.name());
      out.put("node_id", "C_fake_" + id.name().substring(0, 10));
      out.put("url", apiBase + "/git/commits/" + id.name());
      out.put("html_url", "https://github.com/fake/commit/" + id.name());
      out.set("author", personJson(author));
      out.set("committer", personJson(committer));
      out.put("message", in.path("message").asText());
      ObjectNode treeNode = out.putObject("tree");
      treeNode.put("sha", tree.name());
      treeNode.put("url", apiBase + "/git/trees/" + tree.name());
      ArrayNode parentsNode = out.putArray("parents");
      parents.forEach(
          p -> parentsNode.addObject().put("sha", p).put("url", apiBase + "/git/commits/" + p));
      ObjectNode verification = out.putObject("verification");
      verification.put("verified", !custom);
      verification.put("reason", custom ? "unsigned" : "valid");
      verification.putNull("signature");
      verification.putNull("payload");
      return new Answer(201, out.toString());
    }
  }

  private Answer updateRef(Repository repo, String ref, String sha, boolean force, boolean create)
      throws IOException {
    String branch = ref.substring(Constants.R_HEADS.length());
    if (protectedBranches.contains(branch)) {
      return new Answer(
          422,
          error("Protected branch update failed for " + ref + ".", "git/refs#update-a-reference"));
    }
    ObjectId target = ObjectId.fromString(sha);
    try (RevWalk walk = new RevWalk(repo)) {
      if (!repo.newObjectReader().has(target, Constants.OBJ_COMMIT)) {
        return new Answer(422, error("Object does not exist", "git/refs#update-a-reference"));
      }
      Ref current = repo.exactRef(ref);
      if (!create && !force) {
        RevCommit now = walk.parseCommit(current.getObjectId());
        RevCommit next = walk.parseCommit(target);
        if (!walk.isMergedInto(now, next)) {
          return new Answer(
              422, error("Update is not a fast forward", "git/refs#update-a-reference"));
        }
      }
      RefUpdate update = repo.updateRef(ref);
      update.setNewObjectId(target);
      update.setForceUpdate(true);
      RefUpdate.Result result = update.update(walk);
      if (result == RefUpdate.Result.LOCK_FAILURE || result == RefUpdate.Result.IO_FAILURE) {
        return new Answer(500, error("Server Error", ""));
      }
    }
    return new Answer(create ? 201 : 200, refJson(ref, sha));
  }

  private String refJson(String ref, String sha) {
    ObjectNode out = JSON.createObjectNode();
    out.put("ref", ref);
    out.put("node_id", "REF_fake");
    out.put("url", apiBase + "/git/" + ref);
    ObjectNode object = out.putObject("object");
    object.put("sha", sha);
    object.put("type", "commit");
    object.put("url", apiBase + "/git/commits/" + sha);
    return out.toString();
  }

  private static PersonIdent person(JsonNode node) {
    return new PersonIdent(
        node.path("name").asText(),
        node.path("email").asText(),
        Instant.parse("2026-11-22T06:00:00Z"),
        ZoneOffset.UTC);
  }

  private static ObjectNode personJson(PersonIdent person) {
    ObjectNode out = JSON.createObjectNode();
    out.put("name", person.getName());
    out.put("email", person.getEmailAddress());
    out.put("date", person.getWhenAsInstant().toString());
    return out;
  }

  static String error(String message, String doc) {
    ObjectNode out = JSON.createObjectNode();
    out.put("message", message);
    out.put("documentation_url", "https://docs.github.com/rest/" + doc);
    return out.toString();
  }

  private Repository open() throws IOException {
    return new FileRepositoryBuilder().setGitDir(bare.toFile()).setMustExist(true).build();
  }
}
