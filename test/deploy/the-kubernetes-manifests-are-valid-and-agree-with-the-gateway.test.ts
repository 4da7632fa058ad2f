import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseConfig } from '../../src/config/parse-config.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../support/start-gateway.js';

const DIRECTORY = join(process.cwd(), 'deploy', 'kubernetes');
const CONTAINERFILE = readFileSync(join(process.cwd(), 'Containerfile'), 'utf8');

interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  [field: string]: unknown;
}

const manifests: Manifest[] = readdirSync(DIRECTORY)
  .filter((file) => file.endsWith('.yaml'))
  .flatMap((file) => parseAllDocuments(readFileSync(join(DIRECTORY, file), 'utf8')).map((document) => ({ ...(document.toJS() as Manifest), file })));

/** The kubernetes-models class for a manifest's apiVersion and kind (`apps/v1` → `kubernetes-models/apps/v1`). */
async function modelClass(manifest: Pick<Manifest, 'apiVersion' | 'kind'>): Promise<new (data: unknown) => { validate(): void }> {
  const module = (await import(`kubernetes-models/${manifest.apiVersion}`)) as Record<string, new (data: unknown) => { validate(): void }>;
  const model = module[manifest.kind];
  if (!model) throw new Error(`kubernetes-models has no ${manifest.apiVersion} ${manifest.kind}`);
  return model;
}

function only<T extends Manifest>(kind: string): T {
  const found = manifests.filter((manifest) => manifest.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0] as T;
}

// Just the fields the checks below read.
interface Container {
  args: string[];
  ports: { name: string; containerPort: number }[];
  env: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
  lifecycle: { preStop: { sleep: { seconds: number } } };
  securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean };
  volumeMounts: { name: string; mountPath: string; subPath?: string }[];
}
type Deployment = Manifest & {
  spec: {
    template: {
      spec: {
        terminationGracePeriodSeconds: number;
        securityContext: { runAsNonRoot: boolean; runAsUser: number };
        containers: Container[];
        volumes: { name: string; configMap?: { name: string } }[];
      };
    };
  };
};

const deployment = only<Deployment>('Deployment');
const pod = deployment.spec.template.spec;
const container = pod.containers[0]!;
const configMap = only<Manifest & { metadata: { name: string }; data: Record<string, string> }>('ConfigMap');
const configText = configMap.data['config.yaml']!;
/** Every `${env:NAME}` the config reads, given a value of the right shape, as the Secret would. */
const env: NodeJS.ProcessEnv = Object.fromEntries(
  [...configText.matchAll(/\$\{env:([A-Z0-9_]+)\}/g)].map(([, name]) => [name!, name!.endsWith('_URL') ? (name === 'REDIS_URL' ? 'redis://redis:6379' : 'postgres://switchyard@postgres/switchyard') : 'set']),
);
const config = parseConfig(configText, env);

describe('every manifest in deploy/kubernetes is valid against the Kubernetes schemas', () => {
  it('holds what a team deploys: Deployment, Service, ConfigMap, PodDisruptionBudget, HorizontalPodAutoscaler', () => {
    expect(manifests.map((manifest) => manifest.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service']);
  });

  it.each(manifests.map((manifest) => [`${manifest.file}: ${manifest.kind}`, manifest] as const))('%s', async (_name, manifest) => {
    const Model = await modelClass(manifest);
    expect(() => new Model(manifest).validate()).not.toThrow();
  });

  it('the validation is real: a probe port of the wrong type is refused', async () => {
    const Model = await modelClass(deployment);
    const broken = structuredClone(deployment);
    (broken.spec.template.spec.containers[0]!.readinessProbe.httpGet as { port: unknown }).port = { name: 'http' };
    expect(() => new Model(broken).validate()).toThrow();
  });
});

describe('the manifests agree with the gateway and its config', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway(`${MOCK_CONNECTIONS}\nroutes: { r: { targets: [{ connection: mock-openai, model: m }] } }\n`);
  });
  afterAll(() => gateway.close());

  it('the ConfigMap holds a config the gateway accepts, listening on every interface', () => {
    expect(config.issues).toEqual([]);
    expect(config.config!.server.host).toBe('0.0.0.0');
  });

  it('the container port is the config port, and the probes hit the gateway health endpoints on it', async () => {
    expect(container.ports).toEqual([{ name: 'http', containerPort: config.config!.server.port }]);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    for (const path of ['/healthz', '/readyz']) expect((await fetch(`${gateway.url}${path}`)).status).toBe(200);
  });

  it('the grace period outlasts the preStop pause plus the drain, with room for the exit', () => {
    const neededSeconds = container.lifecycle.preStop.sleep.seconds + config.config!.server.drain_ms / 1000;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(neededSeconds + 5);
  });

  it('the config is read from the mounted ConfigMap as a directory (a subPath mount would never see updates)', () => {
    const configPath = container.args[container.args.indexOf('--config') + 1]!;
    const volume = pod.volumes.find((candidate) => candidate.configMap?.name === configMap.metadata.name)!;
    const mount = container.volumeMounts.find((candidate) => candidate.name === volume.name)!;
    expect(mount.subPath).toBeUndefined();
    expect(configPath).toBe(`${mount.mountPath}/config.yaml`);
    expect(CONTAINERFILE).toContain(`CMD ["serve", "--config", "${configPath}"]`);
  });

  it('every variable the config reads comes from the Secret, not from the manifest text', () => {
    const fromSecret = container.env.filter((variable) => variable.valueFrom?.secretKeyRef).map((variable) => variable.name);
    expect(Object.keys(env).sort()).toEqual(fromSecret.sort());
  });

  it('the spill directory is a writable volume on a read-only root filesystem', () => {
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    const store = config.config!.store;
    expect(store.kind).toBe('postgres');
    const spillDirectory = store.kind === 'postgres' ? store.spill_dir : '';
    expect(container.volumeMounts.map((mount) => mount.mountPath)).toContain(spillDirectory);
  });

  it('the pod and the image run as the same non-root user, on Node 26', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    const stages = CONTAINERFILE.split(/^FROM /m).slice(1);
    const finalStage = stages[stages.length - 1]!;
    expect(finalStage).toMatch(/^node:26-slim\n/);
    // The official Node images' `node` user is uid 1000.
    expect(finalStage).toMatch(/^USER node$/m);
    expect(CONTAINERFILE).toContain('npm ci --omit=dev');
  });
});
