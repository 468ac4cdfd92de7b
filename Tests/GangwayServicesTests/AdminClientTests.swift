import Foundation
import GangwayFlows
import GangwayScreens
import GangwayServices
import Testing

@Suite("AdminClient: the operator's calls, behind the admin token")
struct AdminClientTests {
    @Test func createsAppsAndUsersAndReportsConflictsAndBadTokens() async throws {
        try await LiveServer().run { server in
            let admin = AdminClient(serverURL: server.url, adminToken: server.server.adminToken)
            try await admin.createApp(id: "cabin", name: "Cabin checks", emailDomains: ["cabin.example"])
            try await admin.createUser("carol", password: "carol-password", displayName: "Carol")
            // The new user signs in to the new app.
            let session = try await MobileServicesClient(serverURL: server.url)
                .signIn(appID: "cabin", username: "carol", password: "carol-password", deviceID: "stand-3")
            #expect(session.user.displayName == "Carol")

            let again = await #expect(throws: ServiceError.refused) {
                try await admin.createApp(id: "cabin", name: "Cabin checks", emailDomains: [])
            }
            #expect(again?.status == 409)
            let taken = await #expect(throws: ServiceError.refused) {
                try await admin.createUser("carol", password: "another-password")
            }
            #expect(taken?.status == 409)
            let weak = await #expect(throws: ServiceError.refused) {
                try await admin.createUser("dave", password: "short")
            }
            #expect(weak?.status == 400)
            let stranger = AdminClient(serverURL: server.url, adminToken: "gw_admin_not-the-token")
            let refused = await #expect(throws: ServiceError.sessionExpired) {
                try await stranger.createUser("erin", password: "erin-password")
            }
            #expect(refused?.status == 401)
            #expect(refused.map { "\($0)" }?.contains("not-the-token") == false)
        }
    }
}
