/**
 * Where the observatory's source is published, a GitHub repository: the About page links it and the
 * portal links every reference to a doc into it (`<repository>/blob/HEAD/docs/...`). A fork that
 * publishes a portal of its own changes it here. A file of its own: the site imports it.
 */
export const SOURCE_REPOSITORY = 'https://github.com/linked-data-observatory/observatory';
