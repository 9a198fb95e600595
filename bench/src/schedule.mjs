// The order of the measurements.
import { isBare } from './contenders.mjs';

/**
 * Rounds; in each, per workload, every contender but the bares once, rotated by one place per round
 * so that no contender is always measured first or last. The bares (Express, Fastify) are not steps
 * of their own: every measurement pairs its contender with a fresh bare server of its framework,
 * loaded in alternating slices (see measure.mjs), and each ratio is taken within that pair.
 */
export function schedule(contenders, workloads, rounds) {
  const plan = [];
  for (let round = 1; round <= rounds; round += 1) {
    for (const workload of workloads) {
      const others = contenders.filter((c) => !isBare(c) && c.workloads.includes(workload));
      const shift = (round - 1) % Math.max(1, others.length);
      const rotated = [...others.slice(shift), ...others.slice(0, shift)];
      plan.push(...rotated.map((contender) => ({ contender, workload, round })));
    }
  }
  return plan.map((step, seq) => ({ ...step, seq }));
}
