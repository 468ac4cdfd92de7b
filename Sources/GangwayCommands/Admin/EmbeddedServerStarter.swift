import Foundation
import GangwayAdmin
import GangwayDemo
import GangwayTerminal

/// What `gangway admin` starts when nothing answers in the data directory: the device
/// app's embedded server, on the same database, for the time of the command.
struct EmbeddedServerStarter: LocalServerStarter {
    let bcryptCost: UInt8

    var appServerDirectoryName: String { DeviceAppOptions.serverDirectoryName }

    func serving<Result: Sendable>(
        directory: URL,
        _ body: @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        try await DemoServer.serving(directory: directory, bcryptCost: bcryptCost, holder: "gangway admin", body)
    }
}
