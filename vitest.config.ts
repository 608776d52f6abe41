import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start many git and node processes; two cores.
    pool: 'forks',
    poolOptions: {forks: {maxForks: 2, minForks: 1}},
  },
})
