/**
 * Infrastructure teardown: containers and their volumes, Kubernetes resources and clusters,
 * infrastructure-as-code stacks, and cloud resources. The sandbox does not stop any of these:
 * they go through a daemon socket or the network, so they ask in both modes. Listing, planning
 * and `--dry-run` forms are not flagged. Tools reached through `npx`, `pnpm dlx`, … are peeled by
 * `wrappers.ts`, so `npx cdk destroy` is `cdk destroy`.
 */
import { parseArgs, positionalArgs } from "./argv.js";
import type { CommandRule, SimpleCommand } from "./simple-command.js";

/** For `positionalArgs`: no option takes a separate value. */
const NO_VALUES = /(?!)/;
const DRY_RUN = /^--dry-?run(?:=(?!none$).*)?$/;

function isDryRun(command: SimpleCommand): boolean {
  return command.args.some((arg) => DRY_RUN.test(arg));
}

function flags(args: readonly string[], short: string, ...long: string[]): boolean {
  const parsed = parseArgs(args);
  return [...short].some((letter) => parsed.shorts.has(letter)) || long.some((name) => parsed.longs.has(name));
}

const CONTAINER_TOOLS = new Set(["docker", "podman", "nerdctl"]);
const COMPOSE_TOOLS = new Set(["docker-compose", "podman-compose"]);
const CONTAINER_GLOBAL = /^(?:-H|--host|-c|--context|--config|-l|--log-level|--tlscacert|--tlscert|--tlskey|--url|--connection|--identity|--root|--runroot|--namespace|-n|--address|-a)$/;
const COMPOSE_GLOBAL = /^(?:-f|--file|-p|--project-name|--profile|--env-file|--project-directory|--ansi|--progress|--parallel)$/;

/** The words after the global options: the subcommand and everything after it. */
function afterGlobals(args: readonly string[], globalValue: RegExp): string[] {
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith("-") && args[i] !== "--") {
    i += !(args[i] as string).includes("=") && globalValue.test(args[i] as string) ? 2 : 1;
  }
  return args.slice(i);
}

function composeDestroys(args: readonly string[]): boolean {
  const [verb, ...rest] = afterGlobals(args, COMPOSE_GLOBAL);
  return (verb === "down" || verb === "rm") && flags(rest, "v", "volumes");
}

/** `docker rm -f|-v`, `docker system prune`, `docker volume rm|prune`, `docker compose down -v`, `podman system reset`, … */
function destroysContainers(command: SimpleCommand): boolean {
  if (COMPOSE_TOOLS.has(command.name)) return composeDestroys(command.args);
  if (!CONTAINER_TOOLS.has(command.name)) return false;
  const [sub, ...rest] = afterGlobals(command.args, CONTAINER_GLOBAL);
  const [verb = "", ...verbArgs] = rest;
  switch (sub) {
    case "compose":
      return composeDestroys(rest);
    case "rm":
      return flags(rest, "fv", "force", "volumes");
    case "container":
    case "pod":
      return verb === "prune" || ((verb === "rm" || verb === "remove") && flags(verbArgs, "fv", "force", "volumes"));
    case "system":
      return verb === "prune" || verb === "reset";
    case "volume":
      return verb === "rm" || verb === "remove" || verb === "prune";
    case "stack":
      return verb === "rm" || verb === "remove" || verb === "down";
    case "machine":
      return verb === "rm" || verb === "remove";
    default:
      return false;
  }
}

const KUBE_TOOLS = new Set(["kubectl", "oc", "kubecolor"]);
const KUBE_GLOBAL = /^(?:-n|--namespace|--context|--cluster|--kubeconfig|-s|--server|--user|--token|--as|--as-group|--request-timeout|-v|--v)$/;
const HELM_GLOBAL = /^(?:-n|--namespace|--kube-context|--kubeconfig|--kube-apiserver|--kube-token|--registry-config|--repository-config)$/;
/** Cluster lifecycle tools and the words that tear a cluster (or node) down. */
const CLUSTER_TEARDOWN: Record<string, RegExp> = {
  kind: /^delete$/,
  minikube: /^delete$/,
  k3d: /^delete$/,
  eksctl: /^delete$/,
  kubeadm: /^reset$/,
};

/** `kubectl delete|drain`, `kubectl apply --prune`, `kubectl replace --force`, `helm uninstall`, `kind delete cluster`, … */
function deletesClusterResources(command: SimpleCommand): boolean {
  if (isDryRun(command)) return false;
  let { name, args } = command;
  if ((name === "microk8s" || name === "k3s") && args[0] === "kubectl") [name, args] = ["kubectl", args.slice(1)];
  if (KUBE_TOOLS.has(name)) {
    const [verb] = positionalArgs(args, KUBE_GLOBAL);
    if (verb === "delete" || verb === "drain") return true;
    if (verb === "apply") return args.includes("--prune");
    if (verb === "replace") return flags(args, "", "force");
    return false;
  }
  if (name === "helm") return /^(?:uninstall|delete|del|un)$/.test(positionalArgs(args, HELM_GLOBAL)[0] ?? "");
  const teardown = Object.hasOwn(CLUSTER_TEARDOWN, name) ? CLUSTER_TEARDOWN[name] : undefined;
  return teardown !== undefined && positionalArgs(args, NO_VALUES).slice(0, 2).some((word) => teardown.test(word));
}

/** `terraform destroy`, `terraform apply -destroy`, `terragrunt run-all destroy`, `pulumi destroy|down|stack rm`, `cdk destroy`, … */
function destroysInfrastructure(command: SimpleCommand): boolean {
  const { name, args } = command;
  const words = positionalArgs(args, NO_VALUES);
  const [verb = "", next = ""] = words;
  switch (name) {
    case "terraform":
    case "tofu":
    case "terragrunt": {
      const destroyFlag = args.some((arg) => /^--?destroy$/.test(arg));
      if (verb === "destroy" || verb === "destroy-all") return true;
      if (verb === "apply") return destroyFlag;
      if (verb === "run-all" || verb === "run") return next === "destroy" || (next === "apply" && destroyFlag);
      return verb === "workspace" && next === "delete";
    }
    case "pulumi":
      return verb === "destroy" || verb === "down" || (verb === "stack" && (next === "rm" || next === "remove"));
    case "cdk":
    case "cdktf":
    case "vagrant":
      return verb === "destroy";
    case "serverless":
    case "sls":
      return verb === "remove";
    case "sam":
    case "amplify":
      return verb === "delete";
    default:
      return false;
  }
}

const AWS_GLOBAL = /^--(?:profile|region|output|endpoint-url|query|color|ca-bundle|cli-read-timeout|cli-connect-timeout|cli-binary-format)$/;
const AWS_DELETE_OP = /^(?:delete|terminate|purge|deregister|destroy)-/;
const GCLOUD_GLOBAL = /^--(?:project|account|configuration|format|verbosity|zone|region|filter|impersonate-service-account|billing-project)$/;
/** Verbs that end the search for a delete verb (`gcloud logging read delete`). */
const NON_DELETE_VERBS = new Set(["list", "describe", "get", "read", "ssh", "scp", "logs", "tail", "create", "update", "set", "add", "print", "browse", "connect", "show"]);

function hasLeadingVerb(words: readonly string[], verb: RegExp): boolean {
  for (const word of words.slice(0, 5)) {
    if (verb.test(word)) return true;
    if (NON_DELETE_VERBS.has(word)) return false;
  }
  return false;
}

/** Cloud CLIs whose leading words name a delete (`az group delete`, `hcloud server delete`, `fly apps destroy`). */
const CLOUD_DELETE_VERBS: Record<string, RegExp> = {
  gcloud: /^delete$/,
  az: /^(?:delete|purge|delete-batch)$/,
  doctl: /^(?:delete|rm)$/,
  fly: /^(?:destroy|delete|remove|rm)$/,
  flyctl: /^(?:destroy|delete|remove|rm)$/,
  vercel: /^(?:remove|rm)$/,
  hcloud: /^delete$/,
  oci: /^delete$/,
  "linode-cli": /^delete$/,
  scw: /^delete$/,
  ibmcloud: /^delete$/,
  wrangler: /^delete$/,
  heroku: /^(?:destroy|[\w-]+:(?:destroy|delete|reset))$/,
  netlify: /^[\w-]+:delete$/,
  firebase: /^(?:[\w-]+:(?:delete|remove)|hosting:disable)$/,
  rclone: /^(?:purge|delete|deletefile)$/,
};

/** `aws s3 rm --recursive`, `aws s3 rb`, `aws … delete-*|terminate-*`, `gcloud … delete`, `gsutil rm -r`, `az group delete`, … */
function deletesCloudResources(command: SimpleCommand): boolean {
  if (isDryRun(command) || command.args.includes("--dryrun")) return false;
  const { name, args } = command;
  if (name === "aws") {
    const [service, op = ""] = positionalArgs(args, AWS_GLOBAL);
    if (service === "s3") return op === "rb" || ((op === "rm" || op === "mv") && args.includes("--recursive")) || (op === "sync" && args.includes("--delete"));
    return AWS_DELETE_OP.test(op);
  }
  if (name === "gsutil" || name === "s3cmd" || name === "mc") {
    const [verb] = positionalArgs(args, /^-[ohu]$/);
    if (verb === "rb") return true;
    if (verb === "rm" || verb === "del") return flags(args, "rRa", "recursive", "force");
    return name === "gsutil" && verb === "rsync" && flags(args, "d");
  }
  const words = positionalArgs(args, name === "gcloud" ? GCLOUD_GLOBAL : NO_VALUES);
  if (name === "gcloud" && words[0] === "storage" && words[1] === "rm") return flags(args, "r", "recursive");
  const verb = Object.hasOwn(CLOUD_DELETE_VERBS, name) ? CLOUD_DELETE_VERBS[name] : undefined;
  return verb !== undefined && hasLeadingVerb(words, verb);
}

export const INFRA_RULES: readonly CommandRule[] = [
  { key: "container_destroy", description: "delete containers or their data volumes", matches: destroysContainers },
  { key: "cluster_delete", description: "delete Kubernetes resources or a cluster", matches: deletesClusterResources },
  { key: "iac_destroy", description: "destroy infrastructure (terraform / pulumi / cdk destroy)", matches: destroysInfrastructure },
  { key: "cloud_delete", description: "delete cloud resources", matches: deletesCloudResources },
];
