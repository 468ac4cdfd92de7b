import Foundation
import GangwaySystem
import GangwayTesting
import Testing

@testable import GangwayQRCode

/// The SVG renderer: well-formed XML, escaping, geometry, and a real rendering.
@Suite("SVG rendering")
struct SVGTests {
    @Test("Root element, size and background", arguments: [(8, 4), (1, 0), (3, 2)])
    func rootElement(moduleSize: Int, quietZone: Int) throws {
        let code = try QRCode(encoding: Fixtures.activationLink)
        let text = code.svg(moduleSize: moduleSize, quietZone: quietZone)
        let document = try SVGDocument(text)
        let extent = (code.size + 2 * quietZone) * moduleSize
        let root = try #require(document.elements.first)
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["viewBox"] == "0 0 \(extent) \(extent)")
        #expect(root.attributes["width"] == "\(extent)")
        #expect(root.attributes["height"] == "\(extent)")
        #expect(root.attributes["role"] == "img")
        #expect(root.attributes["shape-rendering"] == "crispEdges")
        let background = try #require(document.first("rect"))
        #expect(background.attributes["fill"] == "#ffffff")
        #expect(background.attributes["width"] == "\(extent)")
        #expect(document.elements.filter { $0.name == "path" }.count == 1)
        #expect(document.title == nil)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "))
    }

    @Test("The path's runs redraw exactly the dark modules, one run per horizontal stretch")
    func pathGeometry() throws {
        let code = try QRCode(encoding: "Crew manifest 🚢", correction: .high)
        let (scale, margin) = (5, 3)
        let document = try SVGDocument(code.svg(moduleSize: scale, quietZone: margin))
        let data = try #require(document.first("path")?.attributes["d"])
        let runs = try #require(SVGPath.runs(data), "path data has an unexpected shape")

        var drawn = [[Bool]](repeating: [Bool](repeating: false, count: code.size), count: code.size)
        for run in runs {
            #expect(run.height == scale)
            #expect(run.x % scale == 0 && run.y % scale == 0 && run.width % scale == 0)
            let y = run.y / scale - margin
            for x in (run.x / scale - margin)..<((run.x + run.width) / scale - margin) {
                #expect(!drawn[y][x], "module drawn twice")
                drawn[y][x] = true
            }
        }
        var expectedRuns = 0
        for y in 0..<code.size {
            #expect(drawn[y] == (0..<code.size).map { code[$0, y] }, "row \(y)")
            expectedRuns += (0..<code.size).filter { code[$0, y] && !code[$0 - 1, y] }.count
        }
        #expect(runs.count == expectedRuns)
    }

    @Test("The title is escaped and reads back unchanged")
    func titleEscaping() throws {
        let title = #"Tom & "Jerry's" <crew> → 東京"#
        let code = try QRCode(encoding: "title")
        let text = code.svg(title: title)
        #expect(text.contains("<title>Tom &amp; &quot;Jerry&apos;s&quot; &lt;crew&gt; → 東京</title>"))
        let document = try SVGDocument(text)
        #expect(document.title == title)
        #expect(document.elements.map(\.name) == ["svg", "title", "rect", "path"])
    }

    @Test("Characters XML cannot carry are dropped from the title, keeping it well-formed")
    func titleControlCharacters() throws {
        let code = try QRCode(encoding: "title")
        let document = try SVGDocument(code.svg(title: "bell\u{07} null\u{00} tab\tend\u{FFFE}"))
        #expect(document.title == "bell null tab\tend")
    }

    @Test(
        "Chromium renders the SVG to an image that zbarimg reads",
        .enabled(if: Tools.chromium.executable != nil, "chromium not found on PATH"),
        .enabled(
            if: Tools.zbarimg.executable != nil,
            "zbarimg not found on PATH: install the Debian package zbar-tools"
        ),
        .tags(.browser),
        .skipsTags,
        arguments: [Fixtures.activationLink, "Crème brûlée — 東京駅 🚢"]
    )
    func chromiumRendering(text: String) async throws {
        let code = try QRCode(encoding: text)
        let folder = try TemporaryFolder()
        let svgPath = try folder.write(Array(code.svg(title: "QR").utf8), to: "code.svg")
        let screenshot = folder.url.appendingPathComponent("screenshot.png").path
        let extent = (code.size + 8) * 8
        let output = try #require(
            try await Tools.run(
                Tools.chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--user-data-dir=\(folder.url.appendingPathComponent("profile").path)",
                    "--screenshot=\(screenshot)", "--window-size=\(extent),\(extent)",
                    URL(fileURLWithPath: svgPath).absoluteString,
                ]
            )
        )
        try #require(output.status == 0, "chromium failed")
        #expect(try await Zbar.decode(file: screenshot) == text)
    }
}
