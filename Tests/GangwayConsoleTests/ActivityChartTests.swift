import Foundation
import Testing

@testable import GangwayConsole

@Suite("The overview's charts: bars to scale, stacked in order, every word escaped, the figures as a table")
struct ActivityChartTests {
    static func chart(_ series: [ActivityChart.Series], labels: [String]? = nil) -> ActivityChart {
        ActivityChart(
            id: "sign-ins",
            title: "Sign-ins",
            span: "the last 7 days",
            bucket: "day",
            labels: labels ?? (1...7).map { "11-2\($0)" },
            series: series
        )
    }

    @Test("the scale's top is 1, 2 or 5 times a power of ten at or above the largest bar")
    func scale() {
        let tops = [0, 1, 2, 3, 5, 6, 10, 11, 20, 21, 99, 100, 101, 4_999, 5_001].map(ActivityChart.scaleTop)
        #expect(tops == [1, 1, 2, 5, 5, 10, 10, 20, 20, 50, 100, 100, 200, 5_000, 10_000])
    }

    @Test("each bar's height is its value over the scale; a series stacks on the one before; zero draws nothing")
    func bars() throws {
        let chart = Self.chart([
            .init(name: "Sign-ins", values: [0, 10, 0, 0, 0, 0, 4]),
            .init(name: "Failed sign-ins", values: [0, 0, 0, 0, 0, 0, 6]),
        ])
        // Scale 10 over a plot 164 high (200 less 10 above and 26 below): 16.4 per sign-in.
        #expect(chart.bars.map(\.style) == ["series-0", "series-0", "series-1"])
        #expect(chart.bars.map(\.height) == ["164", "65.6", "98.4"])
        #expect(chart.bars.map(\.y) == ["10", "108.4", "10"])
        #expect(chart.bars[2].label == "11-27: 6 failed sign-ins")
        #expect(chart.gridLines.map(\.label) == ["0", "5", "10"])
        #expect(chart.summary == "In the last 7 days: 14 sign-ins, 6 failed sign-ins; at most 10 in one day.")
        #expect(chart.hasLegend)
        #expect(chart.rows.count == 7)
        #expect(chart.rows[6].cells.map(\.value) == ["4", "6"])
        // Seven labels shown at most six at a time: every second one.
        #expect(chart.ticks.map(\.label) == ["11-21", "11-23", "11-25", "11-27"])
    }

    @Test("a chart and its parts answer the template's names as their stored properties do")
    func lookup() throws {
        let chart = Self.chart([
            .init(name: "Sign-ins", values: [0, 10, 0, 0, 0, 0, 4]),
            .init(name: "Failed sign-ins", values: [0, 0, 0, 0, 0, 0, 6]),
        ])
        ConsoleLookupTests.answersEveryProperty(chart)
        ConsoleLookupTests.answersEveryProperty(try #require(chart.bars.first))
        ConsoleLookupTests.answersEveryProperty(try #require(chart.ticks.first))
        ConsoleLookupTests.answersEveryProperty(try #require(chart.gridLines.first))
        ConsoleLookupTests.answersEveryProperty(try #require(chart.legend.first))
        ConsoleLookupTests.answersEveryProperty(try #require(chart.rows.first))
        ConsoleLookupTests.answersEveryProperty(try #require(chart.columns.first))
    }

    @Test("a count that does not add up over days says only its most in one")
    func notAdditive() {
        let chart = ActivityChart(
            id: "active",
            title: "Devices active",
            span: "the last 24 hours",
            bucket: "hour",
            labels: ["10:00", "11:00"],
            series: [.init(name: "Devices active", values: [3, 2])],
            additive: false
        )
        #expect(chart.summary == "In the last 24 hours: at most 3 in one hour.")
        #expect(!chart.hasLegend)
    }

    @Test("drawn by the template: an image with its name and summary, the words escaped, no script or inline style")
    func drawn() {
        let chart = Self.chart(
            [.init(name: "<b>Sign-ins</b>", values: [1, 2, 3, 4, 5, 6, 7])],
            labels: (1...7).map { "<i>\($0)</i>" }
        )
        let page = OverviewPage(
            signedIn: SignedInOperator(name: "ops.ada", role: "viewer", formToken: "token", current: "/console"),
            figures: [("Apps", 1)],
            charts: [chart],
            span: "The last 7 days"
        )
        let html = ConsoleTemplates().render(page)
        #expect(
            html.contains(#"<svg viewBox="0 0 640 200" role="img" aria-labelledby="sign-ins-title sign-ins-summary""#)
        )
        #expect(html.contains(#"<title id="sign-ins-title">Sign-ins</title>"#))
        #expect(html.contains("&lt;i&gt;7&lt;/i&gt;: 7 &lt;b&gt;sign-ins&lt;/b&gt;"))
        #expect(!html.contains("<b>") && !html.contains("<i>"))
        #expect(html.components(separatedBy: "<rect ").count == 8)
        #expect(!html.contains("<script") && !html.contains("style="))
        #expect(html.contains("Nothing needs attention."))
    }
}
