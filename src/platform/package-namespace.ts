// What `import('<package>')` of a CommonJS package gives, made the same everywhere. Node's own
// loader gives its exports as named exports (found by reading the source) beside `default`, the
// module.exports object; erx's bundle (scripts/bundle-dist.js) gives only `default`. Every lazy
// import of a package whose named exports erx uses goes through this, so both run the same code.

/** The package's exports: module.exports when the namespace holds nothing else, else the namespace. */
export function packageExports<Namespace extends object>(loaded: Namespace): Namespace {
  const exported = (loaded as { default?: unknown }).default;
  const onlyDefault = Object.keys(loaded).length === 1 && exported !== null && typeof exported === 'object';
  return onlyDefault ? (exported as Namespace) : loaded;
}
