// The order of the measurements.

/**
 * Rounds; in each, per workload, the contenders rotated by one place per round and split into
 * three groups, with bare before, between and after them. Each contender's ratio is taken
 * against the bare measurements right before and after its group, so slow drift of a shared
 * machine cancels out.
 */
export function schedule(contenders, workloads, rounds) {
  const plan = [];
  const bare = contenders.find((c) => c.id === 'bare');
  for (let round = 1; round <= rounds; round += 1) {
    for (const workload of workloads) {
      const others = contenders.filter((c) => c.id !== 'bare' && c.workloads.includes(workload));
      const shift = (round - 1) % Math.max(1, others.length);
      const rotated = [...others.slice(shift), ...others.slice(0, shift)];
      const size = Math.max(1, Math.ceil(rotated.length / 3));
      plan.push({ contender: bare, workload, round });
      for (let i = 0; i < rotated.length; i += size) {
        plan.push(...rotated.slice(i, i + size).map((contender) => ({ contender, workload, round })));
        plan.push({ contender: bare, workload, round });
      }
    }
  }
  return plan.map((step, seq) => ({ ...step, seq }));
}
