import Foundation
import PackagePlugin

/// Makes a module's JSON resource files part of its code (`EmbeddedResources.files`),
/// so the `gangway` binary runs wherever it is copied, with no resource bundle beside it.
@main
struct EmbedResources: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        let files = module.sourceFiles.filter { $0.url.pathExtension == "json" }.map(\.url)
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedResources.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) resource files in \(target.name)",
                executable: try context.tool(named: "gangway-embed").url,
                arguments: [output.path, module.directoryURL.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
