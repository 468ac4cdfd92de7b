import Mustache

// A month's four charts hold some six hundred values: each answers the template's names
// directly (MustacheParent) rather than through `Mirror`, as the users page does. A test
// holds each answer to the stored property of that name.

extension ActivityChart: MustacheParent {
    public func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "title": title
        case "summary": summary
        case "width": width
        case "height": height
        case "plotLeft": plotLeft
        case "plotRight": plotRight
        case "baseline": baseline
        case "bars": bars
        case "gridLines": gridLines
        case "ticks": ticks
        case "legend": legend
        case "hasLegend": hasLegend
        case "columns": columns
        case "rows": rows
        default: nil
        }
    }
}

extension ActivityChart.Bar: MustacheParent {
    public func child(named name: String) -> Any? {
        switch name {
        case "style": style
        case "x": x
        case "y": y
        case "width": width
        case "height": height
        case "label": label
        default: nil
        }
    }
}

extension ActivityChart.Tick: MustacheParent {
    public func child(named name: String) -> Any? {
        switch name {
        case "x": x
        case "y": y
        case "label": label
        default: nil
        }
    }
}

extension ActivityChart.GridLine: MustacheParent {
    public func child(named name: String) -> Any? {
        switch name {
        case "y": y
        case "labelY": labelY
        case "label": label
        default: nil
        }
    }
}

extension ActivityChart.LegendEntry: MustacheParent {
    public func child(named name: String) -> Any? {
        switch name {
        case "style": style
        case "name": self.name
        default: nil
        }
    }
}

extension ActivityChart.Row: MustacheParent {
    public func child(named name: String) -> Any? {
        switch name {
        case "label": label
        case "cells": cells
        default: nil
        }
    }
}

extension ActivityChart.Cell: MustacheParent {
    public func child(named name: String) -> Any? {
        switch name {
        case "value": value
        case "column": column
        default: nil
        }
    }
}
