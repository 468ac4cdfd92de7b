import Foundation

/// axe-core's accessibility checks (WCAG 2.0, 2.1 and 2.2 A and AA rules), run in the browser on the page
/// it shows, as a person's assistive technology would meet it.
///
/// The script is pytest-playwright-axe's copy of axe-core (4.14), from PyPI, in the test
/// environment at `.build-oidc/venv` (`.ci/run` installs it). No environment variable
/// points elsewhere.
public enum Accessibility {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// axe-core's script; `nil` when it is not installed.
    public static let script: String? = {
        let lib = packageRoot.appendingPathComponent(".build-oidc/venv/lib")
        guard let versions = try? FileManager.default.contentsOfDirectory(atPath: lib.path) else { return nil }
        for version in versions.sorted() where version.hasPrefix("python3") {
            let file = lib.appendingPathComponent(
                "\(version)/site-packages/pytest_playwright_axe/resources/axe.min.js"
            )
            if let text = try? String(contentsOf: file, encoding: .utf8) { return text }
        }
        return nil
    }()

    public static var isInstalled: Bool { script != nil }
}

extension HeadlessBrowser {
    /// What axe-core finds wrong on the page shown, a line per rule with the elements at
    /// fault; empty when nothing is.
    public func accessibilityViolations() async throws -> [String] {
        guard let script = Accessibility.script else { throw Failure(description: "axe-core is not installed") }
        _ = try await evaluate(script + "\nreturn true;")
        let found = try await evaluate(
            """
            return axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']}}).then(function (r) {
              return r.violations.map(function (v) {
                return v.id + ': ' + v.help + ' (' + v.nodes.map(function (n) { return n.target.join(' '); }).join(', ') + ')';
              });
            });
            """
        )
        guard let lines = found as? [Any] else {
            throw Failure(description: "axe-core answered \(String(describing: found))")
        }
        return lines.map { "\($0)" }
    }
}
