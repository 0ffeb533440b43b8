// A loopback stand-in for the slice of GitHub's REST API that the Action's merged-PR flow calls,
// for .ci/container-test (node built-ins only; test use only):
//
//   node .ci/fake-github-api.mjs --out DIR --token TOKEN --repo OWNER/NAME --origin BARE.git
//        [--protected BRANCH]... [--parent-pid PID]
//
// Routes, answered as GitHub documents them (REST API version 2022-11-28):
//   GET /repos/{owner}/{repo}                   "Get a repository": the repository, main as
//                                               default_branch, the token's permissions
//   GET /repos/{owner}/{repo}/branches/{branch} "Get a branch": the tip of BRANCH in the bare
//                                               origin (the repository the runs push to),
//                                               "protected" as --protected (or PUT/DELETE
//                                               /__protected/BRANCH) says; 404 when the origin
//                                               has no such branch
//   GET  /repos/{owner}/{repo}/pulls            "List pull requests" (state, head, base filters)
//   POST /repos/{owner}/{repo}/pulls            "Create a pull request" (422 when the head branch
//                                               is not in the origin or one is already open)
//   GET, PATCH /repos/{owner}/{repo}/pulls/{n}  "Get" / "Update a pull request"
// Pull request objects take the shape of hub4j's recording of api.github.com that the Java
// fake uses too (src/test/resources/github/recorded/, see PROVENANCE.md there), with this
// repository's names and the state kept here (head/base SHAs from the origin).
// Anything else answers 404 {"message":"Not Found"} (and shows in the record). A request with an
// Authorization header that is not "token TOKEN" or "Bearer TOKEN" gets 401 "Bad credentials";
// one without any gets 404 (the repository is private), as GitHub answers them.
//
// DIR/requests.jsonl gets one JSON line per request: method, path, query, auth ("none", or
// "token"/"bearer" followed by "expected" or "other", never the token itself), the status
// answered and, for POST and PATCH, the JSON body sent. DIR/pulls.json holds the pull requests. Truncate it to start a new record. DIR/api.json ({"url", "port", "pid"}) is written
// once the server listens. Stops on SIGTERM/SIGINT, and by itself once --parent-pid is gone.
import { execFileSync } from 'node:child_process';
import { randomUUID, createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    out: { type: 'string' },
    token: { type: 'string' },
    repo: { type: 'string', default: 'octo-org/octo-repo' },
    origin: { type: 'string' },
    protected: { type: 'string', multiple: true, default: [] },
    'parent-pid': { type: 'string' },
  },
});
for (const required of ['out', 'token', 'origin']) {
  if (!args[required]) {
    console.error(`fake-github-api: --${required} is required`);
    process.exit(2);
  }
}
const [owner, name] = args.repo.split('/');
const out = path.resolve(args.out);
fs.mkdirSync(out, { recursive: true });
const requestLog = path.join(out, 'requests.jsonl');
fs.writeFileSync(requestLog, '');

const protectedBranches = new Set(args.protected);
const pulls = [];
const pullTemplate = JSON.parse(
  fs.readFileSync(
    new URL('../src/test/resources/github/recorded/GHPullRequestTest/createPullRequest/__files/4-r_h_g_pulls.json', import.meta.url),
    'utf8',
  ),
);

const server = http.createServer(onRequest);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const info = JSON.stringify({ url: `http://127.0.0.1:${port}`, port, pid: process.pid });
  fs.writeFileSync(path.join(out, 'api.json.tmp'), info);
  fs.renameSync(path.join(out, 'api.json.tmp'), path.join(out, 'api.json'));
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (args['parent-pid']) {
  const parent = Number(args['parent-pid']);
  setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch {
      process.exit(0);
    }
  }, 1000).unref();
}

function onRequest(req, res) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
}

function answer(req, res, text) {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (url.pathname.startsWith('/__protected/')) {
    // Test control, not GitHub: PUT protects a branch, DELETE lifts it. Not recorded.
    const branch = decodeURIComponent(url.pathname.slice('/__protected/'.length));
    if (req.method === 'PUT') protectedBranches.add(branch);
    else protectedBranches.delete(branch);
    res.writeHead(204).end();
    return;
  }
  const base = `http://${req.headers.host}`;
  const auth = authorization(req.headers.authorization);
  let input;
  try {
    input = text === '' ? {} : JSON.parse(text);
  } catch {
    input = undefined;
  }
  let status;
  let body;
  let headers = {};
  if (auth.endsWith('other')) {
    [status, body] = [401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' }];
  } else if (input === undefined) {
    [status, body] = [400, { message: 'Problems parsing JSON', documentation_url: 'https://docs.github.com/rest', status: '400' }];
  } else {
    [status, body, headers = {}] = route(req.method, url.pathname, url.searchParams, input, base);
    if (auth === 'none' && status < 400) {
      [status, body, headers] = [...notFound('https://docs.github.com/rest/repos/repos#get-a-repository'), {}];
    }
  }
  const record = { method: req.method, path: url.pathname, query: url.search, auth, status };
  if (req.method === 'POST' || req.method === 'PATCH') record.body = input ?? text;
  fs.appendFileSync(requestLog, JSON.stringify(record) + '\n');
  fs.writeFileSync(path.join(out, 'pulls.json'), JSON.stringify(pulls, null, 1));
  {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'x-github-api-version-selected': '2022-11-28',
      'x-github-media-type': 'github.v3; format=json',
      'x-github-request-id': randomUUID().toUpperCase(),
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-used': '1',
      'x-ratelimit-resource': 'core',
      ...(status === 200 ? { etag: `W/"${createHash('sha256').update(text).digest('hex')}"`, 'cache-control': 'private, max-age=60, s-maxage=60' } : {}),
      ...headers,
    });
    res.end(text);
  }
}

/** "none", or the scheme followed by whether the credential is the expected token. */
function authorization(header) {
  if (header === undefined) return 'none';
  const m = /^(token|bearer)\s+(\S+)$/i.exec(header.trim());
  if (!m) return 'other';
  return `${m[1].toLowerCase()} ${m[2] === args.token ? 'expected' : 'other'}`;
}

function notFound(documentation) {
  return [404, { message: 'Not Found', documentation_url: documentation, status: '404' }];
}

function route(method, pathname, query, input, base) {
  const repoPath = `/repos/${owner}/${name}`;
  if (method === 'GET' && pathname === repoPath) return [200, repository(base)];
  if (pathname === `${repoPath}/pulls`) {
    if (method === 'GET') return [200, listPulls(query, base)];
    if (method === 'POST') return createPull(input, base);
  }
  const number = new RegExp(`^${repoPath}/pulls/(\\d+)$`).exec(pathname)?.[1];
  const pull = number && pulls.find((p) => p.number === Number(number));
  if (number && (method === 'GET' || method === 'PATCH')) {
    if (!pull) return notFound('https://docs.github.com/rest/pulls/pulls#get-a-pull-request');
    if (method === 'PATCH') {
      for (const key of ['title', 'body', 'state']) if (typeof input[key] === 'string') pull[key] = input[key];
    }
    return [200, renderPull(pull, base)];
  }
  const branch = pathname.startsWith(`${repoPath}/branches/`)
    ? decodeURIComponent(pathname.slice(`${repoPath}/branches/`.length))
    : undefined;
  if (method === 'GET' && branch !== undefined) {
    const found = branchOf(branch, base);
    return found
      ? [200, found]
      : [404, { message: 'Branch not found', documentation_url: 'https://docs.github.com/rest/branches/branches#get-a-branch', status: '404' }];
  }
  return notFound('https://docs.github.com/rest');
}

const OWNER_ID = 9919;
const REPOSITORY_ID = 1296269;

function account(base, login, id, type) {
  const u = `${base}/users/${login}`;
  return {
    login, id, node_id: Buffer.from(`04:${type}${id}`).toString('base64'),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`, gravatar_id: '',
    url: u, html_url: `https://github.com/${login}`,
    followers_url: `${u}/followers`, following_url: `${u}/following{/other_user}`,
    gists_url: `${u}/gists{/gist_id}`, starred_url: `${u}/starred{/owner}{/repo}`,
    subscriptions_url: `${u}/subscriptions`, organizations_url: `${u}/orgs`, repos_url: `${u}/repos`,
    events_url: `${u}/events{/privacy}`, received_events_url: `${u}/received_events`,
    type, site_admin: false,
  };
}

function repository(base) {
  const r = `${base}/repos/${owner}/${name}`;
  const ownerAccount = account(base, owner, OWNER_ID, 'Organization');
  return {
    id: REPOSITORY_ID, node_id: Buffer.from(`010:Repository${REPOSITORY_ID}`).toString('base64'),
    name, full_name: `${owner}/${name}`, private: true, owner: ownerAccount,
    html_url: `https://github.com/${owner}/${name}`, description: 'Kubernetes manifests', fork: false,
    url: r, archive_url: `${r}/{archive_format}{/ref}`, assignees_url: `${r}/assignees{/user}`,
    blobs_url: `${r}/git/blobs{/sha}`, branches_url: `${r}/branches{/branch}`,
    collaborators_url: `${r}/collaborators{/collaborator}`, comments_url: `${r}/comments{/number}`,
    commits_url: `${r}/commits{/sha}`, compare_url: `${r}/compare/{base}...{head}`,
    contents_url: `${r}/contents/{+path}`, contributors_url: `${r}/contributors`,
    deployments_url: `${r}/deployments`, downloads_url: `${r}/downloads`, events_url: `${r}/events`,
    forks_url: `${r}/forks`, git_commits_url: `${r}/git/commits{/sha}`,
    git_refs_url: `${r}/git/refs{/sha}`, git_tags_url: `${r}/git/tags{/sha}`,
    git_url: `git:github.com/${owner}/${name}.git`, issue_comment_url: `${r}/issues/comments{/number}`,
    issue_events_url: `${r}/issues/events{/number}`, issues_url: `${r}/issues{/number}`,
    keys_url: `${r}/keys{/key_id}`, labels_url: `${r}/labels{/name}`, languages_url: `${r}/languages`,
    merges_url: `${r}/merges`, milestones_url: `${r}/milestones{/number}`,
    notifications_url: `${r}/notifications{?since,all,participating}`, pulls_url: `${r}/pulls{/number}`,
    releases_url: `${r}/releases{/id}`, ssh_url: `git@github.com:${owner}/${name}.git`,
    stargazers_url: `${r}/stargazers`, statuses_url: `${r}/statuses/{sha}`,
    subscribers_url: `${r}/subscribers`, subscription_url: `${r}/subscription`, tags_url: `${r}/tags`,
    teams_url: `${r}/teams`, trees_url: `${r}/git/trees{/sha}`,
    clone_url: `https://github.com/${owner}/${name}.git`, mirror_url: null, hooks_url: `${r}/hooks`,
    svn_url: `https://github.com/${owner}/${name}`, homepage: null, language: null,
    forks_count: 0, stargazers_count: 0, watchers_count: 0, size: 108, default_branch: 'main',
    open_issues_count: 0, is_template: false, topics: [], has_issues: true, has_projects: true,
    has_wiki: false, has_pages: false, has_downloads: true, has_discussions: false, archived: false,
    disabled: false, visibility: 'private', pushed_at: '2026-01-05T09:12:44Z',
    created_at: '2025-03-14T10:01:02Z', updated_at: '2026-01-05T09:12:48Z',
    // An installation token (GITHUB_TOKEN included) with contents: write.
    permissions: { admin: false, maintain: false, push: true, triage: false, pull: true },
    allow_rebase_merge: true, allow_squash_merge: true, allow_merge_commit: true,
    allow_auto_merge: false, delete_branch_on_merge: false, allow_forking: false,
    web_commit_signoff_required: false, license: null, forks: 0, open_issues: 0, watchers: 0,
    temp_clone_token: null, organization: ownerAccount, network_count: 0, subscribers_count: 1,
  };
}

/** "Get a branch" for BRANCH as it is in the bare origin; undefined when it has no such branch. */
function branchOf(branch, base) {
  let fields;
  try {
    fields = execFileSync(
      'git',
      ['-C', args.origin, 'log', '-1', '--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B',
        `refs/heads/${branch}`, '--'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    ).split('\0');
  } catch {
    return undefined;
  }
  const [sha, tree, parents, an, ae, ad, cn, ce, cd, message] = fields;
  const r = `${base}/repos/${owner}/${name}`;
  const isProtected = protectedBranches.has(branch);
  return {
    name: branch,
    commit: {
      sha, node_id: Buffer.from(`04:Commit${sha}`).toString('base64'),
      commit: {
        author: { name: an, email: ae, date: ad }, committer: { name: cn, email: ce, date: cd },
        message: message.trimEnd(), tree: { sha: tree, url: `${r}/git/trees/${tree}` },
        url: `${r}/git/commits/${sha}`, comment_count: 0,
        verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
      },
      url: `${r}/commits/${sha}`, html_url: `https://github.com/${owner}/${name}/commit/${sha}`,
      comments_url: `${r}/commits/${sha}/comments`, author: null, committer: null,
      parents: parents.split(' ').filter(Boolean).map((p) => ({
        sha: p, url: `${r}/commits/${p}`, html_url: `https://github.com/${owner}/${name}/commit/${p}`,
      })),
    },
    _links: { self: `${r}/branches/${branch}`, html: `https://github.com/${owner}/${name}/tree/${branch}` },
    protected: isProtected,
    protection: {
      enabled: isProtected,
      required_status_checks: isProtected
        ? { enforcement_level: 'non_admins', contexts: ['countersign check'], checks: [{ context: 'countersign check', app_id: null }] }
        : { enforcement_level: 'off', contexts: [], checks: [] },
    },
    protection_url: `${r}/branches/${branch}/protection`,
  };
}

function tip(branch) {
  try {
    return execFileSync('git', ['-C', args.origin, 'rev-parse', '--verify', '-q', `refs/heads/${branch}^{commit}`], {
      encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

function validationFailed(message, documentation) {
  return [422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message }], documentation_url: documentation, status: '422' }];
}

/** "head" may be "branch" or "owner:branch", as GitHub accepts it. */
function headBranch(head) {
  const i = String(head).indexOf(':');
  return i < 0 ? String(head) : String(head).slice(i + 1);
}

function createPull(input, base) {
  const doc = 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request';
  for (const key of ['head', 'base']) {
    if (typeof input[key] !== 'string') return validationFailed(`${key} is required`, doc);
  }
  if (typeof input.title !== 'string' && input.issue === undefined) return validationFailed('title is required', doc);
  const head = headBranch(input.head);
  if (!tip(head)) {
    return [422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }], documentation_url: doc, status: '422' }];
  }
  if (!tip(input.base)) {
    return [422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field: 'base', code: 'invalid' }], documentation_url: doc, status: '422' }];
  }
  if (pulls.some((p) => p.state === 'open' && p.head === head && p.base === input.base)) {
    return validationFailed(`A pull request already exists for ${owner}:${head}.`, doc);
  }
  const pull = {
    number: 42 + pulls.length, head, base: input.base, title: input.title, body: input.body ?? null,
    draft: input.draft === true, state: 'open',
  };
  pulls.push(pull);
  const rendered = renderPull(pull, base);
  return [201, rendered, { location: rendered.url }];
}

function listPulls(query, base) {
  const state = query.get('state') ?? 'open';
  const head = query.get('head');
  return pulls
    .filter((p) => state === 'all' || p.state === state)
    // GitHub filters by head only in the "user:ref-name" form; a bare branch name is ignored.
    .filter((p) => !head || !head.includes(':') || (head.split(':')[0] === owner && headBranch(head) === p.head))
    .filter((p) => !query.get('base') || query.get('base') === p.base)
    .map((p) => renderPull(p, base));
}

/** The recorded pull request, renamed to this repository, with PULL's state. */
function renderPull(pull, base) {
  const text = JSON.stringify(pullTemplate)
    .replaceAll('http://localhost:51456', base)
    .replaceAll('https://api.github.com', base)
    .replaceAll('hub4j-test-org/github-api', `${owner}/${name}`)
    .replaceAll('hub4j-test-org', owner);
  const pr = JSON.parse(text);
  const r = `${base}/repos/${owner}/${name}`;
  Object.assign(pr, {
    number: pull.number, url: `${r}/pulls/${pull.number}`, issue_url: `${r}/issues/${pull.number}`,
    html_url: `https://github.com/${owner}/${name}/pull/${pull.number}`,
    diff_url: `https://github.com/${owner}/${name}/pull/${pull.number}.diff`,
    patch_url: `https://github.com/${owner}/${name}/pull/${pull.number}.patch`,
    commits_url: `${r}/pulls/${pull.number}/commits`, review_comments_url: `${r}/pulls/${pull.number}/comments`,
    comments_url: `${r}/issues/${pull.number}/comments`,
    state: pull.state, title: pull.title, body: pull.body, draft: pull.draft,
    labels: [], assignees: [], assignee: null, requested_reviewers: [], requested_teams: [],
    merged: false, merged_at: null, merge_commit_sha: null, closed_at: pull.state === 'closed' ? new Date().toISOString() : null,
  });
  pr.head = { ...pr.head, ref: pull.head, label: `${owner}:${pull.head}`, sha: tip(pull.head) ?? pr.head.sha };
  pr.base = { ...pr.base, ref: pull.base, label: `${owner}:${pull.base}`, sha: tip(pull.base) ?? pr.base.sha };
  if (pr.head.repo) Object.assign(pr.head.repo, { id: REPOSITORY_ID, default_branch: 'main', private: true, fork: false });
  if (pr.base.repo) Object.assign(pr.base.repo, { id: REPOSITORY_ID, default_branch: 'main', private: true, fork: false });
  return pr;
}
