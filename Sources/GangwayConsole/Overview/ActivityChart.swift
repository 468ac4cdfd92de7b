import Foundation

/// A bar chart of counts over time, drawn as SVG by the `chart` template: every number
/// and word in it is a value the template escapes, so a chart needs no script, no inline
/// style and no unescaped markup. Series stack from the bottom, in order; the figures are
/// also given as a table, for a screen reader and for copying.
public struct ActivityChart: Sendable {
    /// One counted thing, drawn in the style sheet's `series-N` colour.
    public struct Series: Sendable {
        public var name: String
        public var values: [Int]
        /// What one of them is called (`failed sign-in`); the name, lowercased, counts any
        /// other number.
        public var one: String

        public init(name: String, one: String? = nil, values: [Int]) {
            self.name = name
            self.one = one ?? name.lowercased()
            self.values = values
        }

        /// `count` of them in words: `1 failed sign-in`, `2 failed sign-ins`.
        func counted(_ count: Int) -> String {
            "\(count) \(count == 1 ? one : name.lowercased())"
        }
    }

    public struct Bar: Sendable {
        public var style: String
        public var x: String
        public var y: String
        public var width: String
        public var height: String
        /// What the bar shows, as its tooltip.
        public var label: String
    }

    public struct Tick: Sendable {
        public var x: String
        public var y: String
        public var label: String
    }

    public struct GridLine: Sendable {
        public var y: String
        public var labelY: String
        public var label: String
    }

    public struct LegendEntry: Sendable {
        public var style: String
        public var name: String
    }

    public struct Row: Sendable {
        public var label: String
        public var cells: [Cell]
    }

    public struct Cell: Sendable {
        public var value: String
        /// The column's name, which a cell says on a phone, where the table's rows stand as
        /// blocks.
        public var column = ""
    }

    /// The drawing's size, in its own units (it scales to the page's width).
    public static let width = 640
    public static let height = 200
    static let plot = (left: 48.0, right: 8.0, top: 10.0, bottom: 26.0)

    /// Unique on its page: the SVG's title and description are found by it.
    public var id: String
    public var title: String
    /// The totals in words: the chart's description.
    public var summary: String
    public var width = Self.width
    public var height = Self.height
    public var plotLeft = String(Int(Self.plot.left))
    public var plotRight = String(Self.width - Int(Self.plot.right))
    public var baseline = String(Self.height - Int(Self.plot.bottom))
    public var bars: [Bar]
    public var gridLines: [GridLine]
    public var ticks: [Tick]
    public var legend: [LegendEntry]
    public var hasLegend: Bool
    /// The table's column headings after the first (the bucket).
    public var columns: [Cell]
    public var rows: [Row]

    /// - Parameters:
    ///   - span: The time shown, for the summary (`the last 7 days`).
    ///   - bucket: One bucket's name (`day`, `hour`).
    ///   - labels: One per bucket, oldest first (`11-26`, `14:00`).
    ///   - series: Each with one value per bucket.
    ///   - additive: Whether the buckets' values add up to the span's (sign-ins do; the
    ///     devices active each day do not).
    public init(
        id: String,
        title: String,
        span: String,
        bucket: String,
        labels: [String],
        series: [Series],
        additive: Bool = true
    ) {
        self.id = id
        self.title = title
        let count = labels.count
        let totals = (0..<count).map { index in series.reduce(0) { $0 + max(0, $1.values[safe: index] ?? 0) } }
        let top = Self.scaleTop(totals.max() ?? 0)
        let plotWidth = Double(Self.width) - Self.plot.left - Self.plot.right
        let plotHeight = Double(Self.height) - Self.plot.top - Self.plot.bottom
        let slot = plotWidth / Double(max(count, 1))
        let bottom = Double(Self.height) - Self.plot.bottom
        var bars: [Bar] = []
        for index in 0..<count {
            var stacked = 0
            for (number, one) in series.enumerated() {
                let value = max(0, one.values[safe: index] ?? 0)
                guard value > 0 else { continue }
                let y0 = bottom - plotHeight * Double(stacked) / Double(top)
                let y1 = bottom - plotHeight * Double(stacked + value) / Double(top)
                stacked += value
                bars.append(
                    Bar(
                        style: "series-\(number)",
                        x: Self.number(Self.plot.left + slot * (Double(index) + 0.15)),
                        y: Self.number(y1),
                        width: Self.number(slot * 0.7),
                        height: Self.number(max(y0 - y1, 0.5)),
                        label: "\(labels[index]): \(one.counted(value))"
                    )
                )
            }
        }
        self.bars = bars
        gridLines = [0, top / 2, top].map { value in
            let y = bottom - plotHeight * Double(value) / Double(top)
            return GridLine(y: Self.number(y), labelY: Self.number(y + 4), label: String(value))
        }
        let step = max(1, Int((Double(count) / 6).rounded(.up)))
        ticks = stride(from: 0, to: count, by: step).map { index in
            Tick(
                x: Self.number(Self.plot.left + slot * (Double(index) + 0.5)),
                y: Self.number(bottom + 18),
                label: labels[index]
            )
        }
        legend = series.enumerated().map { LegendEntry(style: "series-\($0.offset)", name: $0.element.name) }
        hasLegend = series.count > 1
        columns = series.map { Cell(value: $0.name) }
        rows = labels.enumerated().map { index, label in
            Row(label: label, cells: series.map { Cell(value: String($0.values[safe: index] ?? 0), column: $0.name) })
        }
        let most = totals.max() ?? 0
        if additive {
            let sums = series.map { one in one.counted(one.values.reduce(0, +)) }
            summary = "In \(span): \(sums.joined(separator: ", ")); at most \(most) in one \(bucket)."
        } else {
            summary = "In \(span): at most \(most) in one \(bucket)."
        }
    }

    /// The top of the scale: the smallest 1, 2 or 5 times a power of ten at or above
    /// `value`, and at least 1.
    static func scaleTop(_ value: Int) -> Int {
        var power = 1
        while true {
            for factor in [1, 2, 5] where factor * power >= value { return max(1, factor * power) }
            power *= 10
        }
    }

    /// A coordinate with at most one decimal.
    static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0
            ? String(Int(tenths / 10)) : String(format: "%.1f", tenths / 10)
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
