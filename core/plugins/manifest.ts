/** A validated `plugin.json` plus where it was found. @see schemas/plugin-manifest.schema.json */
export interface PluginManifest {
  id: string;
  version: string;
  /** semver range of the kernel plugin API this plugin was written for. */
  kernelApi: string;
  description: string;
  /** Entry module, relative to the manifest (`./index.ts`). */
  entry: string;
  /** Migrations folder relative to the manifest; default `migrations/<id>/` at the repository top. */
  migrations?: string;
  requires: string[];
  provides?: { services?: string[]; authSchemes?: string[] };
  permissions?: { scope: string; description: string }[];
  events?: string[];
  config?: string;
}

/** A manifest and the folder it lives in. */
export interface DiscoveredPlugin {
  manifest: PluginManifest;
  /** Absolute folder of `plugin.json`. */
  dir: string;
  /** true when found in this repository's `plugins/`, false when loaded through `plugins.paths`. */
  builtIn: boolean;
}

/** The kernel plugin API version plugins' `kernelApi` ranges are checked against. */
export const KERNEL_API_VERSION = '1.0.0';
