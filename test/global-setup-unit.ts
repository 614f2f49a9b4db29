// The unit tests' setup (vitest.mutation.config.ts): the run's database and clock, no bundles.
export { provideDatabase as default } from './global-setup.js';
