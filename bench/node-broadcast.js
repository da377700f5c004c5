#!/usr/bin/env node
// Minimal broadcast server on Debian's node-ws (the Node baseline of `make bench`): every
// message from any client is sent to every connected client of its room, the sender
// included, the same semantics as libwebsockets' lws-mirror-protocol. A client's room is
// the URL's `?mirror=NAME` (none: the room "", where every client of `make bench` is), as
// with the lws mirror, but without its limit of 3 rooms. It stands for the Node-based
// peers (Colyseus, Socket.IO, y-websocket), whose fan-out ends in the same ws.send loop.
//
//   node bench/node-broadcast.js [PORT] [HOST]   (PORT 0: ephemeral)
// Prints "listening on ws://HOST:PORT" once it accepts connections.
'use strict';
let WebSocketServer;
try {
  ({ WebSocketServer } = require('ws'));
} catch (error) {
  // Debian installs node-ws under /usr/share/nodejs, on node's default path; be explicit
  // for a node from elsewhere.
  ({ WebSocketServer } = require('/usr/share/nodejs/ws'));
}

const port = Number(process.argv[2] || 0);
const host = process.argv[3] || '127.0.0.1';
const server = new WebSocketServer({ port, host, perMessageDeflate: false, clientTracking: true });
const rooms = new Map(); // name -> Set of sockets

server.on('connection', (socket, request) => {
  const name = new URL(request.url, 'http://localhost').searchParams.get('mirror') || '';
  let room = rooms.get(name);
  if (!room) {
    room = new Set();
    rooms.set(name, room);
  }
  room.add(socket);
  socket.on('message', (data, isBinary) => {
    for (const client of room) {
      if (client.readyState === 1) client.send(data, { binary: isBinary });
    }
  });
  socket.on('close', () => {
    room.delete(socket);
    if (room.size === 0 && rooms.get(name) === room) rooms.delete(name);
  });
  socket.on('error', () => {});
});

server.on('listening', () => {
  const address = server.address();
  process.stdout.write(`listening on ws://${address.address}:${address.port}\n`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const client of server.clients) client.terminate();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 500).unref();
  });
}
