// Import cycles in src, test, bench and scripts fail lint (npm run lint). The direction between layers is eslint's rule (eslint.config.js);
// this adds what a per-file rule cannot see: a circle, which makes load order matter and a module impossible to
// read or test alone. Type-only imports count too: they tie the modules' meanings together all the same.
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules of src import each other in a circle: move what both need into a module of its own.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
