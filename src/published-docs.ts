/**
 * Content types of the published documentation files ({docs_url} in the spec), by extension. The
 * local runtime serves them with these, and the AWS docs site stores them with these (S3 would
 * otherwise guess, without a charset). Files with other extensions are not published.
 */
export const PUBLISHED_DOC_CONTENT_TYPES = {
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
} as const;
