#!/usr/bin/env node
// Operator Console egress relay. Runs inside the sandbox (network namespace with only its own
// loopback) in the provider-only network mode, before the agent:
//
//   node egress-relay.mjs <proxy-socket> <relay-port> [--forward host:port]... -- <command> [args...]
//
// - Listens on 127.0.0.1:<relay-port> and passes each connection, byte for byte, to the console's
//   egress proxy on <proxy-socket> (a Unix socket bound into the sandbox). The agent's HTTPS_PROXY
//   and HTTP_PROXY point here; the proxy on the host decides what is allowed.
// - For each --forward host:port (an allowed endpoint on the host's loopback, such as a local model
//   server), listens on the same port of the sandbox's loopback and tunnels each connection through
//   the proxy with CONNECT, so clients that never use a proxy for loopback still reach it.
// - Then starts the command with the same stdio (the run's PTY), and exits with its exit code
//   (128 + signal number when it was killed by a signal).
//
// Signals: SIGTERM and SIGHUP are passed on to the command. SIGINT and SIGQUIT are not: they come
// from the terminal, which already delivers them to the whole foreground process group (the command
// included), and a second copy would read as a second Ctrl-C. The relay itself ignores them so the
// network keeps working while the agent handles its Ctrl-C.
//
// Plain JavaScript with no dependencies: it runs from the console's installation with whatever Node
// the sandbox can see.

import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';

/**
 * @param {string} message
 * @param {number} code
 * @returns {never}
 */
function fail(message, code) {
  process.stderr.write(`egress-relay: ${message}\n`);
  process.exit(code);
}

/** @param {string[]} argv */
function parseArguments(argv) {
  const separator = argv.indexOf('--');
  if (separator < 2 || separator === argv.length - 1) {
    fail('usage: egress-relay.mjs <proxy-socket> <relay-port> [--forward host:port]... -- <command> [args...]', 125);
  }
  const [socketPath = '', portText, ...options] = argv.slice(0, separator);
  const relayPort = Number(portText);
  if (!Number.isInteger(relayPort) || relayPort < 1 || relayPort > 65535) fail(`bad relay port ${portText}`, 125);
  /** @type {{ authority: string; port: number }[]} */
  const forwards = [];
  for (let i = 0; i < options.length; i += 1) {
    if (options[i] !== '--forward' || options[i + 1] === undefined) fail(`unexpected argument ${options[i]}`, 125);
    const authority = options[i + 1] ?? '';
    const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
    if (!match) fail(`bad forward ${authority}`, 125);
    forwards.push({ authority, port: Number(match[2]) });
    i += 1;
  }
  return { socketPath, relayPort, forwards, command: argv.slice(separator + 1) };
}

/**
 * @param {net.Socket} a
 * @param {net.Socket} b
 */
function splice(a, b) {
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

/** @param {string} socketPath */
function proxyListener(socketPath) {
  return net.createServer((client) => splice(client, net.connect(socketPath)));
}

// Opens a CONNECT tunnel through the proxy, then splices it to the client. A refused tunnel closes
// the client's connection: to the client that looks like a server that hung up.
/**
 * @param {string} socketPath
 * @param {string} authority
 */
function forwardListener(socketPath, authority) {
  return net.createServer((client) => {
    client.pause();
    const upstream = net.connect(socketPath, () => {
      upstream.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    });
    // A client gone before the tunnel is up must not leave the tunnel half-open.
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    let head = Buffer.alloc(0);
    /** @param {Buffer} chunk */
    const onData = (chunk) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > 16 * 1024) upstream.destroy();
        return;
      }
      upstream.off('data', onData);
      const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      if (!/^HTTP\/1\.[01] 200 /.test(statusLine)) {
        upstream.destroy();
        client.destroy();
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) client.write(rest);
      splice(client, upstream);
      client.resume();
    };
    upstream.on('data', onData);
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
  });
}

/**
 * @param {net.Server} server
 * @param {number} port
 * @param {string} host
 * @returns {Promise<void>}
 */
function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function main() {
  const { socketPath, relayPort, forwards, command } = parseArguments(process.argv.slice(2));
  try {
    await listen(proxyListener(socketPath), relayPort, '127.0.0.1');
    for (const forward of forwards) {
      await listen(forwardListener(socketPath, forward.authority), forward.port, '127.0.0.1');
      // `localhost` may resolve to ::1 first; serve it there too when the sandbox has IPv6.
      await listen(forwardListener(socketPath, forward.authority), forward.port, '::1').catch(() => undefined);
    }
  } catch (error) {
    fail(`cannot listen: ${error instanceof Error ? error.message : String(error)}`, 125);
  }

  for (const signal of ['SIGINT', 'SIGQUIT']) process.on(signal, () => {});
  const [program = '', ...args] = command;
  const child = spawn(program, args, { stdio: 'inherit' });
  for (const signal of /** @type {const} */ (['SIGTERM', 'SIGHUP'])) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on('error', (/** @type {NodeJS.ErrnoException} */ error) => fail(`cannot start ${program}: ${error.message}`, error.code === 'ENOENT' ? 127 : 126));
  child.on('exit', (code, signal) => {
    process.exit(code ?? 128 + (signal ? os.constants.signals[signal] : 0));
  });
}

// Nothing awaits main(): an unexpected rejection ends the relay as any unhandled rejection does.
void main();
