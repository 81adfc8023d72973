import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * zod/mini with zod's English messages: import `z` from here, not from 'zod/mini'. The schemas every
 * function loads at cold start (configuration, request validation) use zod/mini, whose functions
 * tree-shake to what is used, where zod's classic API brings its methods on every schema (~90 KB of
 * each bundle). zod/mini loads no locale by itself (its messages would all be "Invalid input"); these
 * are the texts the classic API shows, so 4xx details and configuration errors read alike.
 */
config(en());

export * from 'zod/mini';
