import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The parts of an SVG document that the tests look at, read with Foundation's XMLParser.
struct SVGDocument {
    struct Element {
        let name: String
        let attributes: [String: String]
    }

    var elements: [Element] = []
    var title: String?

    /// Parses `text`; throws when it is not well-formed XML.
    init(_ text: String) throws {
        let collector = Collector()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = collector
        guard parser.parse() else {
            throw parser.parserError ?? CocoaError(.propertyListReadCorrupt)
        }
        elements = collector.elements
        title = collector.title
    }

    func first(_ name: String) -> Element? {
        elements.first { $0.name == name }
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var title: String?
        private var inTitle = false

        func parser(
            _ parser: XMLParser,
            didStartElement elementName: String,
            namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String]
        ) {
            elements.append(Element(name: elementName, attributes: attributes))
            if elementName == "title" {
                inTitle = true
                title = ""
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inTitle {
                title? += string
            }
        }

        func parser(
            _ parser: XMLParser,
            didEndElement elementName: String,
            namespaceURI: String?,
            qualifiedName: String?
        ) {
            if elementName == "title" {
                inTitle = false
            }
        }
    }
}

/// Reads back the rectangles of a path made of `Mx yhWvHh-Wz` runs.
enum SVGPath {
    struct Run: Equatable {
        let x: Int
        let y: Int
        let width: Int
        let height: Int
    }

    /// The runs in `data`, or `nil` if it contains anything else.
    static func runs(_ data: String) -> [Run]? {
        var runs: [Run] = []
        for part in data.split(separator: "M") {
            // "32 40h56v8h-56z " -> [32, 40, 56, 8, 56]
            let command = part.trimmingCharacters(in: .whitespaces)
            guard command.hasSuffix("z") else { return nil }
            let fields = command.dropLast().split(whereSeparator: { " hv-".contains($0) })
            let numbers = fields.compactMap { Int($0) }
            guard numbers.count == 5, fields.count == 5 else { return nil }
            let (x, y, width, height) = (numbers[0], numbers[1], numbers[2], numbers[3])
            guard command == "\(x) \(y)h\(width)v\(height)h-\(width)z", numbers[4] == width else {
                return nil
            }
            runs.append(Run(x: x, y: y, width: width, height: height))
        }
        return runs
    }
}
