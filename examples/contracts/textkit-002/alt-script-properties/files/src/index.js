export { stripAccents } from './accents.js';
export { camelCase, kebabCase, pascalCase, snakeCase, titleCase } from './case.js';
export { center, padEnd, padStart } from './pad.js';
export { slugify } from './slugify.js';
export { truncate } from './truncate.js';
export { displayWidth } from './width.js';
export { words } from './words.js';
export { wrap } from './wrap.js';
