import Foundation
import GangwayProtocol
import GangwayServer
import GangwayTesting
import HTTPTypes

enum MobileServicesServerRestart {
    /// A second server over the same data directory, as after a restart.
    static func restart(_ fixture: ServerFixture, renewAdminToken: Bool = false) async throws -> MobileServicesServer {
        try await MobileServicesServer(
            configuration: fixture.server.configuration,
            renewAdminToken: renewAdminToken,
            logger: fixture.logs.logger,
            now: fixture.clock.now
        )
    }
}
