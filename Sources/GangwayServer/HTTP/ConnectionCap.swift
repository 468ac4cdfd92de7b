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
            let activity: Activity
            var channel: any Channel
        }

        /// Since when a connection has had no request under way, set by its own event
        /// loop at each request's head and answer without taking the count's lock: the
        /// count reads it only when it must make room.
        final class Activity: Sendable {
            /// The idle time's start in uptime nanoseconds; ``busy`` while a request is
            /// under way.
            private let idleSince = Atomic<Int64>(Activity.now)
            private static let busy: Int64 = -1
            private static var now: Int64 { Int64(clamping: NIODeadline.now().uptimeNanoseconds) }

            func mark(busy: Bool) {
                idleSince.store(busy ? Self.busy : Self.now, ordering: .relaxed)
            }

            /// Since when it has been idle; `nil` while a request is under way.
            var idle: Int64? {
                let value = idleSince.load(ordering: .relaxed)
                return value == Self.busy ? nil : value
            }
        }

        private struct State {
            var connections: [ObjectIdentifier: Connection] = [:]
            var byAddress: [String: Int] = [:]
        }

        private let state = Mutex(State())
        /// Called with the method of each request answered 503 and closed, for the
        /// server's figures.
        let refused: @Sendable (HTTPRequest.Method) -> Void

        /// - Parameters:
        ///   - perAddress: The most one address holds; `exempt` addresses (proxies that
        ///     carry many people's connections) are not held to it.
        ///   - refused: Called with the method of each request answered 503 and closed.
        init(
            limit: Int,
            perAddress: Int? = nil,
            exempt: [AddressRange] = [],
            refused: @escaping @Sendable (HTTPRequest.Method) -> Void = { _ in }
        ) {
            self.limit = max(1, limit)
            self.perAddress = max(1, perAddress ?? limit)
            self.exempt = exempt
            self.refused = refused
        }

        /// Counts connection `id` of `address` on `channel`; whether it is let in. At the
        /// limit, the longest idle connection is closed to make room.
        func enter(_ id: ObjectIdentifier, address: String, channel: any Channel, activity: Activity) -> Bool {
            let isExempt = exempt.contains { $0.contains(address) }
            let (admitted, evicted) = state.withLock { state -> (Bool, (any Channel)?) in
                // The address at its share gives way from its own idle connections; the
                // listener at its limit, from anyone's.
                let atShare = !isExempt && state.byAddress[address, default: 0] >= perAddress
                var evicted: (any Channel)?
                if atShare || state.connections.count >= limit {
                    var oldest: (id: ObjectIdentifier, since: Int64)?
                    for (id, connection) in state.connections where !atShare || connection.address == address {
                        if let since = connection.activity.idle, since < oldest?.since ?? .max {
                            oldest = (id, since)
                        }
                    }
                    guard let oldestID = oldest?.id, let connection = state.connections[oldestID] else {
                        return (false, nil)
                    }
                    state.connections[oldestID] = nil
                    state.byAddress[connection.address, default: 1] -= 1
                    if state.byAddress[connection.address] == 0 { state.byAddress[connection.address] = nil }
                    evicted = connection.channel
                }
                state.connections[id] = Connection(address: address, activity: activity, channel: channel)
                state.byAddress[address, default: 0] += 1
                return (true, evicted)
            }
            evicted?.close(promise: nil)
            return admitted
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
    private let activity = Count.Activity()
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
        refused = !count.enter(id, address: address, channel: context.channel, activity: activity)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard refused else {
            if case .head = unwrapInboundIn(data) { activity.mark(busy: true) }
            context.fireChannelRead(data)
            return
        }
        guard case .head(let request) = unwrapInboundIn(data) else { return }
        count.refused(request.method)
        let head = HTTPResponse(
            status: .serviceUnavailable,
            headerFields: [.retryAfter: "1", .connection: "close", .contentLength: "0"]
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !refused, case .end = unwrapOutboundIn(data) { activity.mark(busy: false) }
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
