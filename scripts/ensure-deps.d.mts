/** Types of scripts/ensure-deps.mjs (plain Node: it runs before node_modules exists). */
/** Installs what `purpose` needs and is missing (npm packages, Debian packages). */
export function ensureDeps(purpose: 'start' | 'test'): void;
/** Whether the checkout's node_modules was installed from its lockfile's present content. */
export function npmPackagesInstalled(checkout: string): boolean;
