import GangwaySystem
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Serves at most ``Count/limit`` connections at once, and at most ``Count/perAddress``
/// of one address, so a flood of connections costs the server a fixed amount of memory
/// and never the ones it serves.
///
/// - At the limit, a new connection takes the place of the one that has waited longest
///   without a request under way (before its first, or between two): connections held
///   open and silent give way to people's requests, and a client whose kept connection
///   was closed opens another.
/// - An address that holds its share likewise gives way from its own silent connections.
/// - When no connection that could give way is silent, the new one is answered `503
///   Service Unavailable` with `Retry-After` at its first request and closed.
///
/// Each listener counts its own connections: the console's own address is never full
/// because the devices' is.
final class ConnectionCap: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The connections open now, shared by every connection of one listener.
    final class Count: Sendable {
        let limit: Int
        let perAddress: Int
        private let exempt: [AddressRange]

        private struct Connection {
            var address: String
            /// Since when it has had no request under way; `nil` while one is.
            var idleSince: NIODeadline?
            var channel: any Channel
        }

        private struct State {
            var connections: [ObjectIdentifier: Connection] = [:]
            var byAddress: [String: Int] = [:]
        }

        private let state = Mutex(State())

        /// - Parameters:
        ///   - perAddress: The most one address holds; `exempt` addresses (proxies that
        ///     carry many people's connections) are not held to it.
        init(limit: Int, perAddress: Int? = nil, exempt: [AddressRange] = []) {
            self.limit = max(1, limit)
            self.perAddress = max(1, perAddress ?? limit)
            self.exempt = exempt
        }

        /// Counts connection `id` of `address` on `channel`; whether it is let in. At the
        /// limit, the longest idle connection is closed to make room.
        func enter(_ id: ObjectIdentifier, address: String, channel: any Channel) -> Bool {
            let isExempt = exempt.contains { $0.contains(address) }
            let (admitted, evicted) = state.withLock { state -> (Bool, (any Channel)?) in
                // The address at its share gives way from its own idle connections; the
                // listener at its limit, from anyone's.
                let atShare = !isExempt && state.byAddress[address, default: 0] >= perAddress
                var evicted: (any Channel)?
                if atShare || state.connections.count >= limit {
                    let oldest = state.connections.filter {
                        $0.value.idleSince != nil && (!atShare || $0.value.address == address)
                    }
                    .min { $0.value.idleSince! < $1.value.idleSince! }
                    guard let (oldestID, connection) = oldest else { return (false, nil) }
                    state.connections[oldestID] = nil
                    state.byAddress[connection.address, default: 1] -= 1
                    if state.byAddress[connection.address] == 0 { state.byAddress[connection.address] = nil }
                    evicted = connection.channel
                }
                state.connections[id] = Connection(address: address, idleSince: .now(), channel: channel)
                state.byAddress[address, default: 0] += 1
                return (true, evicted)
            }
            evicted?.close(promise: nil)
            return admitted
        }

        /// Connection `id` has a request under way (`busy`) or none.
        func mark(_ id: ObjectIdentifier, busy: Bool) {
            state.withLock { state in
                guard state.connections[id] != nil else { return }
                state.connections[id]?.idleSince = busy ? nil : .now()
            }
        }

        /// Connection `id` ended (or was closed to make room, which counted it out).
        func leave(_ id: ObjectIdentifier) {
            state.withLock { state in
                guard let connection = state.connections.removeValue(forKey: id) else { return }
                state.byAddress[connection.address, default: 1] -= 1
                if state.byAddress[connection.address] == 0 { state.byAddress[connection.address] = nil }
            }
        }

        var current: Int { state.withLock { $0.connections.count } }
    }

    private let count: Count
    private var counted = false
    private var refused = false

    init(_ count: Count) {
        self.count = count
    }

    private var id: ObjectIdentifier { ObjectIdentifier(self) }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { enter(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        enter(context)
        context.fireChannelActive()
    }

    private func enter(_ context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        refused = !count.enter(id, address: address, channel: context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard refused else {
            if case .head = unwrapInboundIn(data) { count.mark(id, busy: true) }
            context.fireChannelRead(data)
            return
        }
        guard case .head = unwrapInboundIn(data) else { return }
        let head = HTTPResponse(
            status: .serviceUnavailable,
            headerFields: [.retryAfter: "1", .connection: "close", .contentLength: "0"]
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !refused, case .end = unwrapOutboundIn(data) { count.mark(id, busy: false) }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        leave()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leave()
    }

    private func leave() {
        guard counted else { return }
        counted = false
        if !refused { count.leave(id) }
    }
}
