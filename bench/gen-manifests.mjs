#!/usr/bin/env node
// Writes N realistic Kubernetes manifests under DIR for the benchmark: mostly ConfigMaps and
// NetworkPolicies (what a platform repository holds most of), and every tenth file a
// multi-document file (ConfigMap + NetworkPolicy + Service), spread over team directories of 50
// files. Deterministic: the same N gives the same bytes, so runs are comparable.
//
//   node bench/gen-manifests.mjs DIR N
import fs from 'node:fs';
import path from 'node:path';

const [dir, countArg] = process.argv.slice(2);
const count = Number(countArg);
if (!dir || !Number.isInteger(count) || count < 0) {
  console.error('usage: gen-manifests.mjs DIR N');
  process.exit(2);
}

const pad = (i) => String(i).padStart(5, '0');

function configMap(i, team) {
  const lines = [];
  for (let k = 0; k < 8; k++) {
    lines.push(`  FEATURE_${k}_ENABLED: "${(i + k) % 3 === 0}"`);
  }
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: app-${pad(i)}-config
  namespace: ${team}
  labels:
    app.kubernetes.io/name: app-${pad(i)}
    app.kubernetes.io/part-of: ${team}
    app.kubernetes.io/managed-by: countersign-bench
data:
  LOG_LEVEL: ${i % 4 === 0 ? 'debug' : 'info'}
  HTTP_PORT: "8080"
  UPSTREAM_URL: https://api-${i % 17}.${team}.svc.cluster.local:8443/v1
  TIMEOUT: 30s
${lines.join('\n')}
  application.properties: |
    server.port=8080
    management.endpoints.web.exposure.include=health,info
    spring.datasource.url=jdbc:postgresql://db-${i % 5}.${team}:5432/app${i}
    cache.ttl.seconds=${60 + (i % 240)}
`;
}

function networkPolicy(i, team) {
  return `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: app-${pad(i)}-ingress
  namespace: ${team}
spec:
  podSelector:
    matchLabels:
      app.kubernetes.io/name: app-${pad(i)}
  policyTypes:
    - Ingress
    - Egress
  ingress:
    - from:
        - namespaceSelector:
            matchLabels:
              kubernetes.io/metadata.name: ingress-nginx
        - podSelector:
            matchLabels:
              app.kubernetes.io/part-of: ${team}
      ports:
        - protocol: TCP
          port: 8080
  egress:
    - to:
        - ipBlock:
            cidr: 10.${i % 250}.0.0/16
            except:
              - 10.${i % 250}.99.0/24
      ports:
        - protocol: TCP
          port: 5432
    - to:
        - namespaceSelector: {}
          podSelector:
            matchLabels:
              k8s-app: kube-dns
      ports:
        - protocol: UDP
          port: 53
`;
}

function service(i, team) {
  return `apiVersion: v1
kind: Service
metadata:
  name: app-${pad(i)}
  namespace: ${team}
spec:
  selector:
    app.kubernetes.io/name: app-${pad(i)}
  ports:
    - name: http
      port: 80
      targetPort: 8080
`;
}

for (let i = 1; i <= count; i++) {
  const team = `team-${String(Math.ceil(i / 50)).padStart(3, '0')}`;
  const teamDir = path.join(dir, team);
  fs.mkdirSync(teamDir, { recursive: true });
  let name;
  let text;
  if (i % 10 === 0) {
    name = `app-${pad(i)}.yaml`;
    text = `${configMap(i, team)}---\n${networkPolicy(i, team)}---\n${service(i, team)}`;
  } else if (i % 2 === 0) {
    name = `app-${pad(i)}-netpol.yaml`;
    text = networkPolicy(i, team);
  } else {
    name = `app-${pad(i)}-config.yaml`;
    text = configMap(i, team);
  }
  fs.writeFileSync(path.join(teamDir, name), text);
}
