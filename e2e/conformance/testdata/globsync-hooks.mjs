// Resolve hook of globsync.mjs: a bare `fs` import (not `node:fs`, which the
// replacement itself uses) resolves to fs-globsync.mjs.
const replacement = new URL('./fs-globsync.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier === 'fs' && context.parentURL !== replacement) {
    return { url: replacement, shortCircuit: true };
  }
  return next(specifier, context);
}
