import Foundation
import PackagePlugin

/// Generates the API's wire types (GangwayWire) from the module's `openapi.json` with
/// swift-openapi-generator, its `public import`s written as plain imports
/// (`gangway-wire-types` says why).
///
/// In place of the generator's own build plugin, which compiles them as the generator
/// wrote them: silencing their warnings instead would take an unsafe compiler flag, and
/// SwiftPM refuses a package whose client products carry one to every app that depends
/// on it by version.
@main
struct WireTypes: BuildToolPlugin {
    /// The files swift-openapi-generator writes for a module that generates types only.
    /// The tool fails, naming the file, when the generator writes one that is not here.
    static let files = [
        "Types.swift", "Types+Components.swift", "Types+Operations.swift", "Types+Components+Schemas.swift",
        "Types+Components+Parameters.swift", "Types+Components+RequestBodies.swift",
        "Types+Components+Responses.swift", "Types+Components+Headers.swift",
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        let document = module.directoryURL.appendingPathComponent("openapi.json")
        let configuration = module.directoryURL.appendingPathComponent("openapi-generator-config.yaml")
        let generated = context.pluginWorkDirectoryURL.appendingPathComponent("Generated")
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("WireTypes")
        let generator = try context.tool(named: "swift-openapi-generator").url
        return [
            .buildCommand(
                displayName: "Generating the wire types of \(target.name)",
                executable: try context.tool(named: "gangway-wire-types").url,
                arguments: [generator.path, document.path, configuration.path, generated.path, output.path]
                    + Self.files,
                inputFiles: [document, configuration, generator],
                outputFiles: Self.files.map { output.appendingPathComponent($0) }
            )
        ]
    }
}
