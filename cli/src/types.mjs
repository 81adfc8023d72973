// @ts-check
/**
 * Shapes shared by the modules (JSDoc only; see openapi.yaml for the full contract).
 *
 * @typedef {'string' | 'boolean'} OptionType
 *
 * @typedef {object} OptionSpec
 * @property {OptionType} type
 * @property {string} description
 * @property {string} [short] one-letter alias
 * @property {boolean} [multiple] repeatable (values collected in order)
 * @property {string} [value] placeholder in the help, e.g. `N`
 *
 * @typedef {Record<string, string | boolean | string[] | undefined>} OptionValues
 *
 * @typedef {object} CommandInput
 * @property {string[]} positionals
 * @property {OptionValues} values
 * @property {NodeJS.ProcessEnv} env
 * @property {() => import('./http.mjs').ApiClient} client reads the configuration (exit 3 without a key)
 *
 * @typedef {object} CommandSpec
 * @property {string} name full name after `notes`, e.g. `notes list`
 * @property {string} summary one line
 * @property {string} [operation] operationId(s) it calls
 * @property {string[]} args positionals: `<name>` required, `[name]` optional, `<name...>` one or more
 * @property {string} [required] required options, shown in the usage line, e.g. `--confirm <id>`
 * @property {Record<string, OptionSpec>} options
 * @property {string[]} examples
 * @property {string} [details] paragraphs after the summary
 * @property {(input: CommandInput) => Promise<number | void>} run resolves to the exit code when not 0
 *
 * @typedef {object} GroupSpec
 * @property {string} name
 * @property {string} summary
 * @property {CommandSpec[]} commands
 *
 * @typedef {object} JobStatus
 * @property {string} note_id
 * @property {string} kind
 * @property {string} status
 * @property {string} stage
 * @property {number} [progress]
 * @property {{ recordings_ahead: number, estimated_start_at?: number }} [waiting] stage `waiting`
 * @property {string} [detail]
 * @property {UploadTarget} [upload]
 *
 * @typedef {object} UploadTarget
 * @property {string} url
 * @property {string} method
 * @property {Record<string, string>} headers
 * @property {number} expires_at
 */

export {};
