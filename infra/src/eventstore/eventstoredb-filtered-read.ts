import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type { AllStreamResolvedEvent, EventStoreDBClient, StreamingRead } from '@eventstore/db-client';

/**
 * A read of $all filtered on the server, forwards or backwards, from a position, for at most `maxCount`
 * matching events. @eventstore/db-client 6.x has the filter for subscriptions only (its `readAll` always
 * sends "no filter"), while the server has answered filtered reads since 20.6: `Streams.Read` with
 * `all` + `count` + `filter` runs `ReadAllForwardsFiltered` / `ReadAllBackwardsFiltered`, which page
 * through the log inside the server until `count` matching events are found or the log ends (with a
 * `count` window the search window is `count` per internal page, and the pages continue). So a poll
 * costs the events it returns, not every record since the checkpoint.
 *
 * The request is the client's own `readAll` request (same generated protobuf classes, same call
 * plumbing) with `setFilter` instead of `setNoFilter`. That plumbing (`GRPCStreamCreator`,
 * `callArguments`, `ReadStream`, `convertGrpcEvent`) is the client's internals: `assertSupported` checks
 * them when the adapter connects, so a client upgrade that moves them fails at start-up, loudly.
 */
const require = createRequire(import.meta.url);
type StreamsPb = typeof import('@eventstore/db-client/generated/streams_pb.js');
type SharedPb = typeof import('@eventstore/db-client/generated/shared_pb.js');
const streamsPb = require('@eventstore/db-client/generated/streams_pb.js') as StreamsPb;
const sharedPb = require('@eventstore/db-client/generated/shared_pb.js') as SharedPb;
const streamsGrpc = require('@eventstore/db-client/generated/streams_grpc_pb') as { StreamsClient: new (...args: never[]) => unknown };
const { ReadStream } = require('@eventstore/db-client/dist/streams/utils/ReadStream') as {
  ReadStream: new (create: () => Promise<unknown>, convert: unknown, options: object) => StreamingRead<AllStreamResolvedEvent>;
};
const { convertGrpcEvent } = require('@eventstore/db-client/dist/utils/convertGrpcEvent') as { convertGrpcEvent: unknown };

export interface FilteredReadOptions {
  /** 'start', 'end', or a position (inclusive: the event at it, if any, is returned). */
  from: 'start' | 'end' | { commit: bigint; prepare: bigint };
  direction: 'forwards' | 'backwards';
  maxCount: number;
  /** Stream-name prefixes; none: every event whose type does not start with `$` (the server's own). */
  streamPrefixes?: readonly string[];
}

/** The client's protected call plumbing, reached from outside (see above). */
interface ClientInternals {
  GRPCStreamCreator: (Client: unknown, debugName: string, creator: (client: { read: (req: unknown, ...args: unknown[]) => Readable }) => Readable) => () => Promise<Readable>;
  callArguments: (options: object, callOptions: object) => unknown[];
}

export function assertSupported(client: EventStoreDBClient): void {
  const internals = client as unknown as Partial<ClientInternals>;
  if (typeof internals.GRPCStreamCreator !== 'function' || typeof internals.callArguments !== 'function' || typeof ReadStream !== 'function' || typeof convertGrpcEvent !== 'function') {
    throw new Error('@eventstore/db-client no longer exposes what the filtered $all read needs (eventstoredb-filtered-read.ts): check the client version (6.x expected)');
  }
}

/** The gRPC request of a filtered $all read (exported for its test). */
export function filteredReadRequest(options: FilteredReadOptions): InstanceType<StreamsPb['ReadReq']> {
  const { ReadReq } = streamsPb;
  const req = new ReadReq();
  const opts = new ReadReq.Options();
  const uuid = new ReadReq.Options.UUIDOption();
  uuid.setString(new sharedPb.Empty());
  const all = new ReadReq.Options.AllOptions();
  if (options.from === 'start') all.setStart(new sharedPb.Empty());
  else if (options.from === 'end') all.setEnd(new sharedPb.Empty());
  else {
    const pos = new ReadReq.Options.Position();
    pos.setCommitPosition(options.from.commit.toString(10));
    pos.setPreparePosition(options.from.prepare.toString(10));
    all.setPosition(pos);
  }
  opts.setAll(all);
  opts.setResolveLinks(false);
  opts.setCount(String(options.maxCount));
  opts.setUuidOption(uuid);
  opts.setReadDirection(options.direction === 'forwards' ? ReadReq.Options.ReadDirection.FORWARDS : ReadReq.Options.ReadDirection.BACKWARDS);
  const expr = new ReadReq.Options.FilterOptions.Expression();
  const filter = new ReadReq.Options.FilterOptions();
  if (options.streamPrefixes && options.streamPrefixes.length > 0) {
    expr.setPrefixList([...options.streamPrefixes]);
    filter.setStreamIdentifier(expr);
  } else {
    // The client's excludeSystemEvents(): system records ($metadata, $>, stats) are typed with a `$`.
    expr.setRegex('^[^\\$].*');
    filter.setEventType(expr);
  }
  filter.setCount(new sharedPb.Empty());
  // Only subscriptions send checkpoints; the server still reads the field, so give it a valid value.
  filter.setCheckpointintervalmultiplier(1);
  opts.setFilter(filter);
  req.setOptions(opts);
  return req;
}

export function filteredReadAll(client: EventStoreDBClient, options: FilteredReadOptions): StreamingRead<AllStreamResolvedEvent> {
  const internals = client as unknown as ClientInternals;
  const req = filteredReadRequest(options);
  const create = internals.GRPCStreamCreator(streamsGrpc.StreamsClient, 'readAllFiltered', (grpc) => grpc.read(req, ...internals.callArguments({}, { deadline: Infinity })));
  return new ReadStream(create, convertGrpcEvent, {});
}
