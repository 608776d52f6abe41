/** Repositories and randomness for tests that drive the library (ListStore) directly. */
import {ListStore} from '../../src/refstore/list-store'
import {makeRepo} from './cli'

/** A repository with an empty list `main` (initialised through the library, not the CLI). */
export async function initializedRepo(): Promise<string> {
  const dir = makeRepo()
  const store = await ListStore.open(dir, 'main')
  await store.init()
  store.close()
  return dir
}

/** A seeded pseudo-random source (a linear congruential generator): the same seed, the same draws. */
export function seededRandom(seed: number): {rand: (n: number) => number; pick: <T>(xs: readonly T[]) => T | undefined} {
  let state = seed >>> 0 || 1
  const rand = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648
    return Math.floor((state / 2147483648) * n)
  }
  return {rand, pick: (xs) => xs[rand(Math.max(xs.length, 1))]}
}
