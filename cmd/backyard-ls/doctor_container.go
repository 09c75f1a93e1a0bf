package main

import "fmt"

// doctorContainer reports the container engine, its runtimes and the image.
func doctorContainer() {
	fmt.Println("  - not probed yet in this build")
}
