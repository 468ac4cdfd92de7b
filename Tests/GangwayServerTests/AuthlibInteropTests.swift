import Foundation
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import HTTPTypes
import Testing

/// The authorization server as a mainstream OAuth client sees it: Authlib (PyPI, pinned
/// in `Tests/Fixtures/oidc/requirements.txt`) with its default validation, driven by
/// `Tests/Fixtures/oidc/authlib_client.py` against a server on loopback, on the real
/// clock (Authlib checks `iat` and `exp` against it).
@Suite(
    "Interoperability: Authlib drives the code grant with PKCE, refresh, revocation and the device grant",
    .servingTurn,
    .enabled(if: TestIdentityProvider.isInstalled, "needs the Python environment in .build-oidc/venv (see .ci/run)"),
    .tags(.postgres, .slow),
    .skipsTags
)
struct AuthlibInteropTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/oidc/authlib_client.py").path

    @Test(
        "every step passes Authlib's default checks, ID tokens included (whole-second iat and exp)",
        arguments: Backend.available
    )
    func authlib(backend: Backend) async throws {
        let python = try #require(TestIdentityProvider.python)
        var options = TestServer.Options(database: try backend.database, bcryptCost: 4)
        // The script reuses a spent refresh token as a copy from another address would.
        options.configure = { $0.trustedProxies = [AddressRange("127.0.0.0/8")!] }
        try await TestServer.run(seed: .checks, options: options) { running in
            try await running.admin(
                .put,
                "/admin/apps/checks/authentication",
                json: #"{"type": "oauth2", "redirectURIs": ["http://127.0.0.1/callback"]}"#
            )
            let output = try #require(
                try await ExternalTool("python", searchPath: [python]).run([
                    Self.script, "--server", running.url.absoluteString, "--username", "alice",
                    "--password", "alice-password",
                ])
            )
            let lines = output.text.split(separator: "\n").map(String.init)
            for step in ["discovery", "authorization", "id_token", "refresh", "revocation", "device"] {
                #expect(lines.contains("ok \(step)"), "\(output.text)")
            }
            #expect(output.status == 0, "\(output.text)")
            #expect(!output.text.contains("alice-password"))
        }
    }
}
