import Foundation
import Logging

/// The server the device app runs in its own process when no `--server` is given.
///
/// The device app does not link the server: whoever starts the app gives it a way to
/// open one (the `gangway` binary gives GangwayDemo's `DemoServer`).
public protocol EmbeddedServer: Sendable {
    /// The PEM of the key the server signs activation payloads with now, for the device to pin.
    func activationKeyPEM() async throws -> String
    /// Whether it serves the demo's app and users (a database it made itself).
    var isDemo: Bool { get }
    /// The port it listened on before, when another program holds it now.
    var keptPortTaken: Int? { get }

    /// Serves while `body` runs with the server's URL, then stops.
    func serving<Result: Sendable>(_ body: (URL) async throws -> Result) async throws -> Result
}

/// Opens the embedded server of a directory; it holds the directory while it lives.
///
/// - Parameters: the server's directory, the cost of its password hashes, its logger,
///   and what runs it (for the message a second process shows).
public typealias EmbeddedServerOpening =
    @Sendable (_ directory: URL, _ bcryptCost: UInt8, _ logger: Logger, _ holder: String) async throws ->
    any EmbeddedServer
