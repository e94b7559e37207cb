/* global require, process, console */
// One autocannon run in its own process, so the load generator does not share the event loop of the
// stack it measures. bench/run.ts passes the options as JSON in argv[2]; a `multipartName` option
// makes every request a multipart body with a unique `name` field. Prints the result as JSON.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon');

const { multipartName, ...options } = JSON.parse(process.argv[2]);
if (multipartName) {
  const boundary = '----benchload0123456789';
  let counter = 0;
  options.headers = { ...options.headers, 'content-type': `multipart/form-data; boundary=${boundary}` };
  options.requests = [
    {
      setupRequest: (request) => ({
        ...request,
        body: `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${multipartName} ${process.pid}-${++counter}\r\n--${boundary}--\r\n`,
      }),
    },
  ];
}
autocannon(options).then(
  (result) => process.stdout.write(JSON.stringify(result)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
