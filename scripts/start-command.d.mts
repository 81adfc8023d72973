/** Types of scripts/start-command.mjs (plain Node, beside the launcher it describes). */
/** The Node arguments `npm start` runs in the checkout `root`: its flags, then the launcher's path. */
export function npmStartNodeArgs(root: string): string[];
