// Entry point for `npm run fuzz:engine` (vitest.fuzz.config.ts): reads the
// cluster and users from $ENGINE_FUZZ_CONFIG, writes results to $ENGINE_FUZZ_OUT.
import { readFileSync, writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { runOrderCheck, runSeed, type FuzzConfig } from './engineFuzz';

const configPath = process.env.ENGINE_FUZZ_CONFIG;
const outPath = process.env.ENGINE_FUZZ_OUT;

it('the shipped engine converges against the real server under faults', async () => {
  expect(configPath, 'ENGINE_FUZZ_CONFIG must name the cluster config (see tests/reliability/test_ts_engine_fuzz.py)').toBeTruthy();
  const cfg = JSON.parse(readFileSync(configPath!, 'utf-8')) as FuzzConfig & { orderOps: number };
  const seeds = [];
  for (const seed of cfg.seeds) seeds.push(await runSeed(cfg, seed));
  const order = await runOrderCheck(cfg, cfg.seeds[0] + 1000, cfg.orderOps);
  if (outPath) writeFileSync(outPath, JSON.stringify({ seeds, order }, null, 2));
  expect(seeds.every((s) => s.lost === 0 && s.diverged.length === 0)).toBe(true);
  expect(order.diverged).toEqual([]);
});
