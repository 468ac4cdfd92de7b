import Foundation
import GangwayPolicy
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite("A seed: its subsets and user attributes set, and one log line for all it made", .servingTurn)
struct ServerSeedTests {
    @Test("the seed's subset, attributes and entities are there; it logs no line per item, as an admin's put does")
    func seedIsQuietAndWhole() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let seed = ServerSeed(
                apps: [
                    SeedApp(
                        id: "gates",
                        name: "Gates",
                        schemas: ["gates": [EntityField("stand", .text)]],
                        subsets: ["gates": EntitySubset(field: "stand", attribute: "stands")]
                    )
                ],
                users: [SeedUser("dora", password: "dora-password-1", attributes: ["stands": ["12"]])],
                entities: (1...3).map {
                    SeedEntity(app: "gates", entitySet: "gates", id: "g\($0)", fields: ["stand": "12"])
                }
            )
            try await fixture.server.seed(seed)
            #expect(!fixture.logs.text.contains("entity created"), "\(fixture.logs.text)")
            #expect(fixture.logs.text.contains("seeded"))
            let user = try await api.admin(.get, "/admin/users/dora").decode(Components.Schemas.User.self)
            #expect(user.attributes?.additionalProperties == ["stands": ["12"]])
            let schema = try await api.admin(.get, "/admin/apps/gates/schemas/gates")
                .decode(Components.Schemas.EntitySchema.self)
            #expect(schema.subset?.field == "stand" && schema.subset?.attribute == "stands")
            let listed = try await api.admin(.get, "/admin/apps/gates/data/gates")
                .decode(Components.Schemas.EntityList.self)
            #expect(listed.entities.map(\.id) == ["g1", "g2", "g3"])

            // The same server logs an admin's put: the seed's silence is its own.
            try api.expectStatus(
                try await api.admin(.put, "/admin/apps/gates/data/gates/g4", json: #"{"fields": {"stand": "14"}}"#),
                .created
            )
            #expect(fixture.logs.text.contains("entity created"))
        }
    }
}
