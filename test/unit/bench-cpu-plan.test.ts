// The throughput benchmark's CPU plan (bench/cpu-pinning.ts): the CPUs this process may use, halved.
import { describe, expect, it } from 'vitest';
import { allowedCpus, cpuPlan } from '../../bench/cpu-pinning';

const status = (list: string) =>
  `Name:\tnode\nCpus_allowed:\tff\nCpus_allowed_list:\t${list}\nMems_allowed:\t1\n`;

describe('the throughput benchmark CPU plan', () => {
  it.each([
    ['0-1', [0, 1]],
    ['0', [0]],
    ['0,2,4-5', [0, 2, 4, 5]],
    ['2-3', [2, 3]],
  ])('reads Cpus_allowed_list %s', (list, cpus) => {
    expect(allowedCpus(status(list))).toEqual(cpus);
  });

  it('knows no CPUs where the list is missing', () => {
    expect(allowedCpus('Name:\tnode\n')).toEqual([]);
  });

  it('gives the load the lower half and the servers the upper half of the allowed CPUs', () => {
    expect(cpuPlan([0, 1])).toEqual({ all: '0,1', load: '0', servers: '1' });
    expect(cpuPlan([2, 3, 6, 7])).toEqual({ all: '2,3,6,7', load: '2,3', servers: '6,7' });
    expect(cpuPlan([0, 1, 2])).toEqual({ all: '0,1,2', load: '0', servers: '1,2' });
  });

  it('does not pin with a single CPU', () => {
    expect(cpuPlan([0])).toBeUndefined();
    expect(cpuPlan([])).toBeUndefined();
  });
});
