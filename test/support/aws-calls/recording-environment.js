// Jest's Node environment for the integration and e2e projects, plus one step at its teardown: the
// AWS calls a test file's functions made (recorder.ts) are written out after every hook of the file
// has run, so a call made while a file cleans up is recorded too.
const { TestEnvironment } = require('jest-environment-node');

class RecordingEnvironment extends TestEnvironment {
  async teardown() {
    const flush = this.global.__flushRecordedAwsCalls;
    if (typeof flush === 'function') flush();
    await super.teardown();
  }
}

module.exports = RecordingEnvironment;
