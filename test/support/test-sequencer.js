// Jest's order of test files, with one change for a run without timings (a clean clone, as CI runs):
// jest then orders files by size, which would leave the e2e files, short but each a minute or more on
// a local stack, to the end, where one alone keeps a worker busy while the other has nothing left.
// Files without a recorded duration go by project first, the slowest projects' files first (by the
// files' average in a full run: e2e about 25 s, integration 6, infra 5, unit under 1), then by size as
// jest does. With timings recorded, jest's own order holds: failed first, then the slowest.
const Sequencer = require('@jest/test-sequencer').default;

const projectsSlowestFirst = ['e2e', 'integration', 'infra', 'unit'];

function rankOf(test) {
  const name = test.context.config.displayName?.name;
  const rank = projectsSlowestFirst.indexOf(name);
  return rank === -1 ? projectsSlowestFirst.length : rank;
}

class ProjectSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    // The untimed files keep the places jest gave them (after the failed ones), reordered among themselves.
    const places = [];
    sorted.forEach((test, index) => {
      if (test.duration == null) places.push(index);
    });
    const untimed = places.map((index) => sorted[index]).sort((a, b) => rankOf(a) - rankOf(b));
    places.forEach((place, at) => {
      sorted[place] = untimed[at];
    });
    return sorted;
  }
}

module.exports = ProjectSequencer;
