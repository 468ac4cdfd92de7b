import Foundation
import GangwayFlows

/// The app's way to its company's backends as the signed-in person: requests to the
/// app's destinations through the server, with the session of one open context.
///
/// ```swift
/// let orders = DestinationClient(services: services, context: context)
/// let answer = try await orders.send(DestinationRequest(destination: "orders", path: "/today"))
/// ```
///
/// A session the server ended is renewed once (the refresh token, or the person signs in
/// again through the context's presenter), and the request is sent again, once; two
/// requests that meet an ended session together share one refresh. The client is bound to
/// its context: after a user switch, the next user's context gives a client of their own,
/// never the previous user's credentials.
public struct DestinationClient: Sendable {
    public let services: MobileServices
    public let context: FlowContext
    /// The most bytes of an answer's body kept; a larger answer fails.
    public var maximumBodySize: Int
    /// The size from which a body's progress is reported (1 MiB unless the app sets one).
    public var progressThreshold: Int = 1 << 20

    public init(services: MobileServices, context: FlowContext, maximumBodySize: Int = 16 << 20) {
        self.services = services
        self.context = context
        self.maximumBodySize = maximumBodySize
    }

    /// Sends `request` and returns the backend's answer, whatever its status.
    ///
    /// - Parameter progress: Told how far the request's body and the answer's travel, for
    ///   a body of ``progressThreshold`` bytes or more (an answer without a length once it
    ///   reaches it).
    /// - Throws: ``ServiceError`` for the server's refusals and when offline
    ///   (``ServiceError/unreachable(_:)``); ``ServiceFlowError/cancelled`` when the
    ///   person gave up signing in again; `SecureStoreError.closed` once the context's
    ///   session is locked or closed (a user switch, a logout, the lock timeout): nothing
    ///   is sent.
    public func send(
        _ request: DestinationRequest,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> DestinationResponse {
        let limit = maximumBodySize
        let observer = progress.map { TransferObserver(threshold: progressThreshold, report: $0) }
        return try await services.withSession(context, asking: true) { client, configuration, token in
            try await client.send(request, appID: configuration.appID, token: token, limit: limit, observer: observer)
        }
    }
}
